"""One part file of a run (``games/`` or ``moves/``) as its readers take it: opened with page
checksums on (``open_part``), its schema that of this jpdsim (``check_schema``), read whole or a
first row with every page checked against its CRC, dictionary indices in bounds and the
footer's row count (``read_checked``, ``first_row``); anything else is a ``BadFile``."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.dataset.layout import newer_schema
from sim.errors import one_line
from sim.schema.tables import SCHEMA_VERSION

_VERSION_KEY = b"jpdsim.schema_version"


class BadFile(Exception):
    """A file that must not be read as part of the run; str is the reason. ``newer``: it was
    written by a newer jpdsim (to be read by an upgraded one, not played again)."""

    def __init__(self, reason: str, newer: bool = False):
        super().__init__(reason)
        self.newer = newer


def open_part(path: Path, dictionary: list[str] | None = None) -> pq.ParquetFile:
    """A Parquet file whose pages are checked against their CRC when read (``dictionary``:
    string columns to read dictionary-encoded)."""
    try:
        return pq.ParquetFile(path, page_checksum_verification=True, read_dictionary=dictionary)
    except Exception as err:  # noqa: BLE001 - any failure means the file is not usable
        raise BadFile(
            f"not a readable Parquet file, half-written or corrupt ({one_line(err, 200)})"
        ) from None


def check_schema(pf: pq.ParquetFile, expected: pa.Schema) -> None:
    schema = pf.schema_arrow
    version = (schema.metadata or {}).get(_VERSION_KEY)
    if version is None:
        raise BadFile("foreign file: no jpdsim schema version in its metadata")
    if version != SCHEMA_VERSION.encode():
        text = version.decode(errors="replace")
        if newer_schema(text):
            raise BadFile(f"written by a newer jpdsim (schema version {text})", newer=True)
        raise BadFile(f"schema version {text}, this jpdsim writes {SCHEMA_VERSION}")
    if (schema.metadata or {}).get(b"jpdsim.kind") != (expected.metadata or {}).get(b"jpdsim.kind"):
        raise BadFile("foreign file: a games file in moves/ or a moves file in games/")
    if not schema.equals(expected, check_metadata=False):
        names, want = schema.names, expected.names
        for f in expected:
            if f.name not in names:
                raise BadFile(f"foreign schema: no column {f.name!r}")
            if schema.field(f.name).type != f.type:
                raise BadFile(
                    f"foreign schema: column {f.name!r} is {schema.field(f.name).type}, "
                    f"expected {f.type}"
                )
        extra = [n for n in names if n not in want]
        raise BadFile(
            f"foreign schema: unexpected column {extra[0]!r}"
            if extra
            else "foreign schema: columns out of order"
        )


def read_checked(pf: pq.ParquetFile, columns: list[str] | None = None) -> pa.Table:
    """Read ``columns`` (all: None): every page checked against its CRC, dictionary indices
    in bounds (a damaged dictionary page header leaves them out), and as many rows as the
    footer says (a damaged data page header can make a column skip its page)."""
    try:
        table = pf.read(columns=columns)
        for column in table.columns:
            if pa.types.is_dictionary(column.type):
                column.validate(full=True)
    except Exception as err:  # noqa: BLE001
        raise BadFile(f"corrupt data ({one_line(err, 200)})") from None
    if table.num_rows != pf.metadata.num_rows:
        raise BadFile(
            f"corrupt data ({table.num_rows} rows read, the footer says {pf.metadata.num_rows})"
        )
    return table


def first_row(pf: pq.ParquetFile, columns: list[str]) -> pa.Table:
    try:
        return pa.Table.from_batches([next(pf.iter_batches(batch_size=1, columns=columns))])
    except Exception as err:  # noqa: BLE001
        raise BadFile(f"corrupt data ({one_line(err, 200)})") from None
