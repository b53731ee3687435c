// The process gpp.service.ts runs `@iabgpp/cmpapi`'s decoder in, under a heap limit and a timeout
// (why: see gpp.service.ts). Plain JavaScript, so it starts without the parent's TypeScript loader.
// Each message is {id, value}; each answer {id, error, budget}: error is null when every section
// decodes; budget is true when the string was stopped by the expansion budget below.
//
// The budget (argv[2], vendor ids per string; none when absent): the library expands vendor ranges
// in two places only, FixedIntegerRangeEncoder.decode and FibonacciIntegerRangeEncoder.decode. Each
// is wrapped so that, before the library walks a range list, the ids it is about to push are counted
// (read as the library reads them, with its own encoders) and the string is stopped once they pass
// the budget. The parent refuses such strings before sending them (gpp-section-bounds.ts); this
// holds the bound for any section or layout that reading does not know.
import {
  BooleanEncoder,
  FibonacciIntegerEncoder,
  FibonacciIntegerRangeEncoder,
  FixedIntegerEncoder,
  FixedIntegerRangeEncoder,
  GppModel,
} from '@iabgpp/cmpapi';

const budget = process.argv[2] === undefined ? Number.POSITIVE_INFINITY : Number(process.argv[2]);
let left = budget;
let exceeded = false;

class OverBudget extends Error {}

function spend(ids) {
  // NaN (a range of infinite ids) fails the comparison too.
  if (!(ids <= left)) {
    exceeded = true;
    throw new OverBudget(`it makes the decoder expand more than ${budget} vendor ids`);
  }
  left -= ids;
}

/** Runs `count`; an error other than the budget's means the library fails at the same place. */
function counted(count) {
  try {
    count();
  } catch (error) {
    if (error instanceof OverBudget) throw error;
  }
}

const decodeFixed = FixedIntegerRangeEncoder.decode;
FixedIntegerRangeEncoder.decode = (bitString) => {
  counted(() => {
    const count = FixedIntegerEncoder.decode(bitString.substring(0, 12));
    let index = 12;
    for (let i = 0; i < count; i++) {
      const isRange = BooleanEncoder.decode(bitString.substring(index, index + 1));
      index++;
      const start = FixedIntegerEncoder.decode(bitString.substring(index, index + 16));
      index += 16;
      if (!isRange) {
        spend(1);
        continue;
      }
      const end = FixedIntegerEncoder.decode(bitString.substring(index, index + 16));
      index += 16;
      spend(end >= start ? end - start + 1 : 0);
    }
  });
  return decodeFixed.call(FixedIntegerRangeEncoder, bitString);
};

const decodeFibonacci = FibonacciIntegerRangeEncoder.decode;
FibonacciIntegerRangeEncoder.decode = (bitString) => {
  counted(() => {
    const count = FixedIntegerEncoder.decode(bitString.substring(0, 12));
    let offset = 0;
    let index = 12;
    const word = () => {
      const end = bitString.indexOf('11', index);
      const value = FibonacciIntegerEncoder.decode(bitString.substring(index, end + 2));
      index = end + 2;
      return value;
    };
    for (let i = 0; i < count; i++) {
      const isRange = BooleanEncoder.decode(bitString.substring(index, index + 1));
      index++;
      const start = word() + offset;
      offset = start;
      if (!isRange) {
        spend(1);
        continue;
      }
      const end = word() + offset;
      offset = end;
      spend(end >= start ? end - start + 1 : 0);
    }
  });
  return decodeFibonacci.call(FibonacciIntegerRangeEncoder, bitString);
};

process.on('message', ({ id, value }) => {
  left = budget;
  exceeded = false;
  let error = null;
  try {
    new GppModel(value).toObject();
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  // The library wraps what its fields throw; the budget says why the string was stopped.
  if (exceeded) error = `it makes the decoder expand more than ${budget} vendor ids`;
  process.send({ id, error, budget: exceeded });
});
// The parent went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
