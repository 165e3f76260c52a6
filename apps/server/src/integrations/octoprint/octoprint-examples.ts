/**
 * Example payloads recorded verbatim from OctoPrint's own API documentation
 * (OctoPrint/OctoPrint, docs/api/job.rst, printer.rst, files.rst, version.rst). The in-process
 * fake answers with these shapes and the adapter's tests parse them as published.
 */

/** docs/api/job.rst, "Retrieve information about the current job", example response. */
export const JOB_PRINTING_EXAMPLE = {
  job: {
    file: { name: 'whistle_v2.gcode', origin: 'local', size: 1468987, date: 1378847754 },
    estimatedPrintTime: 8811,
    filament: { length: 810, volume: 5.36 },
  },
  progress: { completion: 0.2298468264184775, filepos: 337942, printTime: 276, printTimeLeft: 912 },
  state: 'Printing',
};

/** docs/api/printer.rst, "Retrieve the current printer state", example 1 (history left out). */
export const PRINTER_OPERATIONAL_EXAMPLE = {
  temperature: {
    tool0: { actual: 214.8821, target: 220.0, offset: 0 },
    tool1: { actual: 25.3, target: null, offset: 0 },
    bed: { actual: 50.221, target: 70.0, offset: 5 },
  },
  sd: { ready: true },
  state: {
    text: 'Operational',
    flags: {
      operational: true,
      paused: false,
      printing: false,
      cancelling: false,
      pausing: false,
      sdReady: true,
      error: false,
      ready: true,
      closedOrError: false,
    },
  },
};

/** docs/api/files.rst, "Upload file or create folder", example response (local part). */
export const UPLOAD_EXAMPLE = {
  files: {
    local: {
      name: 'whistle_v2.gcode',
      path: 'whistle_v2.gcode',
      type: 'machinecode',
      typePath: ['machinecode', 'gcode'],
      origin: 'local',
      refs: {
        resource: 'http://example.com/api/files/local/whistle_v2.gcode',
        download: 'http://example.com/downloads/files/local/whistle_v2.gcode',
      },
    },
  },
  done: false,
  effectiveSelect: true,
  effectivePrint: true,
};

/** docs/api/version.rst, example response. */
export const VERSION_EXAMPLE = { api: '0.1', server: '1.3.10', text: 'OctoPrint 1.3.10' };
