#!/usr/bin/env node
import { main } from '../src/main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`layerline: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
