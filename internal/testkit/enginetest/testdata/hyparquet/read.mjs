// Reads Parquet files with hyparquet, a reader that shares no code with
// DuckDB, for the engine tests.
//
// Reads one JSON object from stdin: {"files": ["/path/part-0.parquet", ...]}
// and writes one JSON line per file:
//   {"file": "...", "rows": N,
//    "schema": [{"name", "type", "repetition_type", "converted_type",
//                "logical_type", "num_children"}, ...],   (the file's schema elements, in order)
//    "data": [[v, ...], ...]}                            (rows, columns in schema order)
// or {"file": "...", "error": "..."}. A value is as hyparquet reads it,
// but for what JSON cannot carry exactly: a 64-bit integer is
// {"int": "digits"}, a timestamp {"ts_us": "microseconds since the
// epoch"} (hyparquet's own Date would drop the microseconds), a date
// {"days": N}.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { readFileSync, writeSync } from "node:fs";

const parsers = {
  timestampFromMilliseconds: (ms) => ({ ts_us: (BigInt(ms) * 1000n).toString() }),
  timestampFromMicroseconds: (us) => ({ ts_us: BigInt(us).toString() }),
  timestampFromNanoseconds: (ns) => ({ ts_ns: BigInt(ns).toString() }),
  dateFromDays: (days) => ({ days }),
};

const json = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? { int: x.toString() } : x));

const req = JSON.parse(readFileSync(0, "utf8"));
for (const path of req.files ?? []) {
  let line;
  try {
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    const schema = metadata.schema.map((e) => ({
      name: e.name,
      type: e.type ?? null,
      repetition_type: e.repetition_type ?? null,
      converted_type: e.converted_type ?? null,
      logical_type: e.logical_type ?? null,
      num_children: e.num_children ?? 0,
    }));
    const rows = await parquetReadObjects({ file, metadata, compressors, parsers });
    const columns = metadata.schema[0].num_children ? topLevel(metadata.schema) : [];
    line = json({ file: path, rows: Number(metadata.num_rows), schema, data: rows.map((r) => columns.map((c) => r[c] ?? null)) });
  } catch (e) {
    line = JSON.stringify({ file: path, error: String((e && e.stack) || e) });
  }
  writeSync(1, line + "\n");
}

// topLevel names the root's children, skipping each one's subtree.
function topLevel(elements) {
  const names = [];
  let i = 1;
  const skip = () => {
    const n = elements[i].num_children ?? 0;
    i++;
    for (let k = 0; k < n; k++) skip();
  };
  while (i < elements.length) {
    names.push(elements[i].name);
    skip();
  }
  return names;
}
