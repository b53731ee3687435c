import { describe, expect, it } from 'vitest';
import {
  CSV_COLUMNS,
  createEncoder,
  csvCell,
  csvField,
  csvRow,
  neutralizeFormula,
} from '../../../../src/modules/exports/export-formats.ts';

describe('CSV cells', () => {
  it('quotes fields holding a quote, comma, CR or LF, doubling inner quotes (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
  });

  it('neutralizes cells a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(neutralizeFormula(`${start}1+1`)).toBe(`'${start}1+1`);
    }
    expect(neutralizeFormula('a=1')).toBe('a=1');
    expect(neutralizeFormula("'already")).toBe("'already");
    expect(csvField('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
    expect(csvField('\rcmd')).toBe('"\'\rcmd"');
  });

  it('writes objects as JSON, absent values as empty, and ends records with CRLF', () => {
    expect(csvCell({ analytics: 'granted' })).toBe('{"analytics":"granted"}');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(3)).toBe('3');
    expect(csvRow(['a', 'b,c'])).toBe('a,"b,c"\r\n');
  });
});

describe('encoders', () => {
  const event = {
    id: 'evt_1',
    type: 'consent.recorded',
    subject: { pseudonym: 'psn_abc' },
    decisions: { a: 'granted', b: 'denied' },
    gpc: true,
    receipt: { hash: 'ff' },
  };

  it('JSONL: one JSON document per line', () => {
    const encoder = createEncoder('jsonl');
    expect(encoder.header()).toBe('');
    expect(encoder.line(event)).toBe(`${JSON.stringify(event)}\n`);
  });

  it('CSV: flattens nested members with dots, in the header order, plus decorator columns', () => {
    const encoder = createEncoder('csv', ['ledger.leafIndex']);
    expect(encoder.header()).toBe(`${[...CSV_COLUMNS, 'ledger.leafIndex'].join(',')}\r\n`);
    // One decision: its JSON has no comma, so a plain split finds the cells.
    const cells = encoder
      .line({ ...event, decisions: { a: 'granted' }, ledger: { leafIndex: 7 } })
      .split(',');
    expect(cells[CSV_COLUMNS.indexOf('subject.pseudonym')]).toBe('psn_abc');
    expect(cells[CSV_COLUMNS.indexOf('receipt.hash')]).toBe('ff');
    expect(cells.at(-1)).toBe('7\r\n');
    expect(encoder.line(event)).toContain('"{""a"":""granted"",""b"":""denied""}"');
  });
});

// store-independent: export file formats, pure functions
