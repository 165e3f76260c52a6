import { describe, expect, it } from 'vitest';
import type { SandboxRun } from './sandbox.ts';
import { classifyFailure, extractWarnings } from './slicer-messages.ts';

const SCRATCH = '/tmp/layerline-slice-AbC123';
const TRACE = '[2026-11-21 13:02:44.000201] [0x00007fc934a74d80] [trace]   Initializing StaticPrintConfigs';
const run = (over: Partial<SandboxRun>): SandboxRun => ({
  pid: 1234, exitCode: 1, signal: null, stdout: `${TRACE}\n10 => Processing triangulated mesh\n`, stderr: '',
  outputTruncated: false, timedOut: false, aborted: false, elapsedMs: 100, killLatencyMs: null, ...over,
});
const ctx = { scratchDir: SCRATCH, timeoutMs: 180_000, cpuSeconds: 120, memoryLimitBytes: 2 * 1024 ** 3 };
const classify = (over: Partial<SandboxRun>) => classifyFailure(run(over), ctx);

describe('classifyFailure (messages PrusaSlicer 2.5 prints on the corpus)', () => {
  it('maps each known message to its code', () => {
    expect(classify({ exitCode: null, signal: 'SIGABRT', stderr: "terminate called after throwing an instance of 'Slic3r::RuntimeError'\n  what():  Objects could not fit on the bed\n" }).code).toBe('does-not-fit');
    expect(classify({ stderr: 'There is an object with no extrusions in the first layer.\nObject name: model.stl\n' }).code).toBe('empty-print');
    expect(classify({ stderr: 'No layers were detected. You might want to repair your STL file(s) or check their size or thickness and retry.\n' }).code).toBe('empty-print');
    expect(classify({ stderr: 'The print is empty. The model is not printable with current print settings.\n' }).code).toBe('empty-print');
    expect(classify({ stderr: 'std::bad_alloc\n' }).code).toBe('memory');
    expect(classify({ exitCode: 127, stderr: 'prusa-slicer: error while loading shared libraries: libopenvdb.so.10.0: failed to map segment from shared object\n' }).code).toBe('memory');
    expect(classify({ exitCode: null, signal: 'SIGKILL', timedOut: true }).code).toBe('timeout');
    expect(classify({ exitCode: null, signal: 'SIGXCPU' }).code).toBe('timeout');
    expect(classify({ exitCode: null, signal: 'SIGKILL', aborted: true }).message).toBe('Slicing was cancelled');
  });

  it('gives the slicer’s reason without our paths or log prefixes', () => {
    const error = classify({
      stdout: `${TRACE}\n[2026-11-21 13:02:44.434331] [0x00007f59ceb3cd80] [error]   load_obj: failed to parse ${SCRATCH}/model.obj. The file contains polygons with more than 4 vertices.\n`,
    });
    expect(error.code).toBe('failed');
    expect(error.message).toBe('The slicer could not process the model: failed to parse model.obj. The file contains polygons with more than 4 vertices.');
    expect(error.message).not.toContain(SCRATCH);
    expect(classify({ stderr: '', stdout: '' }).message).toBe('The slicer could not process the model: it exited with code 1');
  });
});

describe('extractWarnings', () => {
  it('reads the print warning block of a successful run', () => {
    const stdout = [
      TRACE,
      '90 => Exporting G-code to /tmp/x/work/out.gcode',
      'print warning: Empty layer between 0 and 0.8.',
      'Empty layer between 0.8 and 2.',
      '',
      'Object name: model.stl',
      '',
      'Make sure the object is printable. This is usually caused by negligibly small extrusions or by a faulty model.',
      'Slicing result exported to /tmp/x/work/out.gcode',
    ].join('\n');
    expect(extractWarnings(stdout, SCRATCH)).toEqual(['PrusaSlicer: Empty layer between 0 and 0.8.', 'PrusaSlicer: Empty layer between 0.8 and 2.']);
    expect(extractWarnings(`${TRACE}\nSlicing result exported to x\n`, SCRATCH)).toEqual([]);
  });
});
