/**
 * Example payloads shaped as Moonraker documents them (Arksine/moonraker,
 * docs/external_api/introduction.md: every HTTP answer is `{"result": …}` except file uploads;
 * printer.md: objects query, print start/pause/resume/cancel answer "ok"; file_manager.md: the
 * upload answer; printer_objects.md: the fields of print_stats, virtual_sdcard, webhooks,
 * extruder and heater_bed). The fake answers with these shapes; the tests parse them.
 */

/** GET /printer/objects/query?print_stats&virtual_sdcard&webhooks&extruder&heater_bed while printing. */
export const OBJECTS_QUERY_PRINTING_EXAMPLE = {
  result: {
    eventtime: 578243.57824499,
    status: {
      webhooks: { state: 'ready', state_message: 'Printer is ready' },
      print_stats: {
        filename: 'test_print.gcode',
        total_duration: 1200.3,
        print_duration: 1100.5,
        filament_used: 832.1,
        state: 'printing',
        message: '',
        info: { total_layer: 120, current_layer: 40 },
      },
      virtual_sdcard: {
        file_path: '/home/pi/printer_data/gcodes/test_print.gcode',
        progress: 0.3362,
        is_active: true,
        file_position: 1201233,
        file_size: 3572877,
      },
      extruder: { temperature: 214.93, target: 215, power: 0.45, pressure_advance: 0.04, smooth_time: 0.04 },
      heater_bed: { temperature: 60.02, target: 60, power: 0.3 },
    },
  },
};

/** POST /server/files/upload with print=true (file_manager.md: not wrapped in "result"). */
export const UPLOAD_EXAMPLE = {
  item: {
    path: 'test_print.gcode',
    root: 'gcodes',
    modified: 1676848829.7433457,
    size: 3572877,
    permissions: 'rw',
  },
  print_started: true,
  print_queued: false,
  action: 'create_file',
};

/** GET /server/info (server.md). */
export const SERVER_INFO_EXAMPLE = {
  result: {
    klippy_connected: true,
    klippy_state: 'ready',
    components: ['database', 'file_manager', 'klippy_apis', 'machine', 'data_store'],
    failed_components: [],
    registered_directories: ['config', 'logs', 'gcodes', 'config_examples', 'docs'],
    warnings: [],
    websocket_count: 4,
    moonraker_version: 'v0.7.1-659-gf047167',
    missing_klippy_requirements: [],
    api_version: [1, 0, 5],
    api_version_string: '1.0.5',
  },
};

/** GET /printer/info (printer.md), abridged. */
export const PRINTER_INFO_EXAMPLE = {
  result: {
    state: 'ready',
    state_message: 'Printer is ready',
    hostname: 'pi-debugger',
    software_version: 'v0.12.0-85-gd785b396',
    cpu_info: '4 core ?',
  },
};

/** An error as Moonraker answers it (introduction.md: a status code and a message, wrapped). */
export const ERROR_EXAMPLE = (code: number, message: string) => ({ error: { code, message, traceback: '' } });
