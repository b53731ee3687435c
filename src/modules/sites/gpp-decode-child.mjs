// The process gpp.ts runs `@iabgpp/cmpapi`'s decoder in, under a heap limit and a timeout (why:
// see gpp.ts). Plain JavaScript, so it starts without the parent's TypeScript loader.
// Each message is {id, value}; each answer {id, error}: error is null when every section decodes.
import { GppModel } from '@iabgpp/cmpapi';

process.on('message', ({ id, value }) => {
  let error = null;
  try {
    new GppModel(value).toObject();
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  process.send({ id, error });
});
// The parent went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
