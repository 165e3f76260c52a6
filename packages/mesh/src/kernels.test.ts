import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileKernels, kernelsModuleText } from '../assembly/build.ts';
import { KERNELS_WASM_BASE64 } from './kernels-wasm.ts';

describe('WebAssembly kernels', () => {
  it('the module the engine loads is what assembly/kernels.ts compiles to (npm run build:kernels -w @layerline/mesh)', async () => {
    const wasm = await compileKernels();
    expect(Buffer.from(KERNELS_WASM_BASE64, 'base64').equals(Buffer.from(wasm))).toBe(true);
    expect(readFileSync(new URL('./kernels-wasm.ts', import.meta.url), 'utf8')).toBe(kernelsModuleText(wasm));
  });
});
