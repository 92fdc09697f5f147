/**
 * RFC 4180 records from streamed text (docs/imports-csv.md, "The file"). Written here rather than
 * taken from a package: the reader needs to know which cells were quoted (Daybook's own export
 * quotes text and never numbers) and to say where a fault is in the words of the rest of the
 * import, and the state machine is small.
 *
 * Fields are separated by commas, records end at CRLF, LF or a lone CR; a field in double quotes may
 * hold commas, line breaks and doubled quotes. A quote inside an unquoted field is kept as a
 * character (spreadsheets write `5" screen` so). Faults: a quoted field never closed, a character
 * after a closing quote other than a comma or a line break, a cell past MAX_CELL characters (an
 * unclosed quote would otherwise swallow the file into memory), a row past MAX_CELLS cells.
 */
import { ImportFault } from '../types';
import { count, rowWhere } from './where';

export const MAX_CELL = 100_000;
export const MAX_CELLS = 2_000;

/** One record: its cells as written (quotes removed) and its row (the header is row 1). */
export interface CsvRecord {
  cells: string[];
  /** quoted[i]: cell i was written in double quotes. */
  quoted: boolean[];
  row: number;
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

const enum State {
  /** At the start of a field. */
  FieldStart,
  /** Inside an unquoted field. */
  Plain,
  /** Inside a quoted field. */
  Quoted,
  /** Just after a quote inside a quoted field: a doubled quote or the field's end. */
  QuoteSeen,
  /** Just after a CR that ended a record: a following LF belongs to it. */
  AfterCr,
}

/** The parser's state between chunks. */
class CsvParser {
  private state = State.FieldStart;
  private cells: string[] = [];
  private quoted: boolean[] = [];
  private field = '';
  private fieldQuoted = false;
  /** Whether the current record has any character (a last record without a line break still counts). */
  private started = false;
  private row = 1;

  /** Where the current cell is. */
  private here(): string {
    return rowWhere(this.row, `${this.cells.length + 1}`);
  }

  private append(text: string): void {
    this.field += text;
    if (this.field.length > MAX_CELL) throw new ImportFault(this.here(), `A cell is longer than ${count(MAX_CELL)} characters: is a quote left open?`);
  }

  private endField(): void {
    if (this.cells.length >= MAX_CELLS) throw new ImportFault(rowWhere(this.row), `The row has more than ${count(MAX_CELLS)} cells.`);
    this.cells.push(this.field);
    this.quoted.push(this.fieldQuoted);
    this.field = '';
    this.fieldQuoted = false;
  }

  /** Ends the field at a comma, CR or LF: the record too at a line break. */
  private endAt(c: number, out: CsvRecord[]): void {
    this.endField();
    if (c === COMMA) {
      this.state = State.FieldStart;
      return;
    }
    out.push({ cells: this.cells, quoted: this.quoted, row: this.row });
    this.cells = [];
    this.quoted = [];
    this.started = false;
    this.row += 1;
    this.state = c === CR ? State.AfterCr : State.FieldStart;
  }

  /** Parses a chunk, pushing the records it completes onto `out` (those before a fault included). */
  feed(chunk: string, out: CsvRecord[]): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case State.AfterCr:
          this.state = State.FieldStart;
          if (c === LF) i += 1;
          break;
        case State.FieldStart:
          this.started = true;
          if (c === QUOTE) {
            this.fieldQuoted = true;
            this.state = State.Quoted;
            i += 1;
          } else this.state = State.Plain;
          break;
        case State.Plain: {
          let j = i;
          for (let d = c; j < n && d !== COMMA && d !== CR && d !== LF; d = chunk.charCodeAt(++j));
          this.append(chunk.slice(i, j));
          if (j < n) this.endAt(chunk.charCodeAt(j), out);
          i = j + 1;
          break;
        }
        case State.Quoted: {
          const j = chunk.indexOf('"', i);
          this.append(chunk.slice(i, j < 0 ? n : j));
          if (j >= 0) this.state = State.QuoteSeen;
          i = j < 0 ? n : j + 1;
          break;
        }
        case State.QuoteSeen:
          i += 1;
          if (c === QUOTE) {
            this.append('"');
            this.state = State.Quoted;
          } else if (c === COMMA || c === CR || c === LF) this.endAt(c, out);
          else
            throw new ImportFault(
              this.here(),
              `After a closing quote comes ${JSON.stringify(String.fromCharCode(c))}; a quoted cell ends with a quote followed by a comma or a line break (write a quote inside a quoted cell as "").`,
            );
          break;
      }
    }
  }

  /** The last record, when the text does not end with a line break. */
  end(): CsvRecord | undefined {
    if (this.state === State.Quoted) throw new ImportFault(this.here(), 'A quoted cell is never closed: the file ends inside it.');
    if (!this.started) return undefined;
    this.endField();
    return { cells: this.cells, quoted: this.quoted, row: this.row };
  }
}

/** The records of the text, a chunk's worth at a time (batches keep the async cost per record low). */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord[]> {
  const parser = new CsvParser();
  for await (const chunk of chunks) {
    const batch: CsvRecord[] = [];
    let fault: unknown;
    try {
      parser.feed(chunk, batch);
    } catch (error) {
      fault = error;
    }
    // The records before a fault come first, then the fault.
    if (batch.length > 0) yield batch;
    if (fault) throw fault;
  }
  const last = parser.end();
  if (last) yield [last];
}
