#!/usr/bin/env node
// Starts fast: the program is one prebuilt ESM file (dist/layerline.mjs, see build.mjs) rather
// than the TypeScript tree, and V8's compile cache keeps it compiled between runs. The bundle is
// rebuilt here when a file it came from changed; without esbuild (an install without dev
// dependencies) or without write access, the TypeScript source runs instead: slower to start,
// same answers.
import module from 'node:module';
import { pathToFileURL } from 'node:url';

module.enableCompileCache?.();
const { bundleIsFresh, buildBundle, BUNDLE } = await import('../build.mjs');

async function program() {
  if (bundleIsFresh()) return pathToFileURL(BUNDLE).href;
  try {
    await buildBundle();
    return pathToFileURL(BUNDLE).href;
  } catch {
    return new URL('../src/cli.ts', import.meta.url).href;
  }
}

await import(await program());
