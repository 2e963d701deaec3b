import { describe, expect, it } from 'vitest';
import { jcs } from '../src/jcs.js';

describe('jcs (RFC 8785)', () => {
  it('canonicalizes the example of section 3.2.2', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        '"literals":[null,true,false]}',
    );
    expect(jcs(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units (section 3.2.3)', () => {
    const input = {
      '€': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '😀': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      ö: 'Latin Small Letter O With Diaeresis',
    };
    expect(jcs(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control",' +
        '"ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face",' +
        '"\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes numbers as ECMAScript does (Appendix B)', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [0.000001, '0.000001'],
      [9007199254740992, '9007199254740992'],
      [-1.7976931348623157e308, '-1.7976931348623157e+308'],
      [5e-324, '5e-324'],
      [295147905179352830000, '295147905179352830000'],
      [4.35, '4.35'],
    ];
    for (const [value, text] of cases) expect(jcs(value)).toBe(text);
  });

  it('nests, drops undefined keys, and refuses what JSON cannot hold', () => {
    expect(jcs({ b: [{ z: 1, a: null }], a: undefined })).toBe('{"b":[{"a":null,"z":1}]}');
    expect(() => jcs(Number.NaN)).toThrow(TypeError);
    expect(() => jcs(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => jcs(10n)).toThrow(TypeError);
  });
});
