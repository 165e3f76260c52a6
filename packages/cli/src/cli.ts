// The program `layerline`: bin/layerline.mjs runs this file's bundle (dist/layerline.mjs, see
// build.mjs), or this file itself when no bundle can be built.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`layerline: internal error: ${(err as Error)?.stack ?? err}\n`);
  return 70;
});
