import { z } from 'zod';

/**
 * PrusaSlicer's bundled printer presets as the printers page offers them (issue 20): read at run
 * time from the vendor bundles installed with PrusaSlicer (Debian: /usr/share/PrusaSlicer/profiles),
 * never copied into Layerline. `GET /api/admin/slicer/printer-presets` (admin only).
 */
export const slicerPrinterPresetSchema = z.object({
  /** The bundle's file name without .ini, e.g. PrusaResearch. */
  vendor: z.string(),
  /** The preset's name, e.g. Original Prusa i3 MK3S. */
  preset: z.string(),
  /** Its bed (the bounding box of bed_shape) and max_print_height, in mm. */
  bedMm: z.object({ x: z.number(), y: z.number() }),
  maxHeightMm: z.number(),
  nozzleMm: z.number(),
});
export type SlicerPrinterPreset = z.infer<typeof slicerPrinterPresetSchema>;

export const slicerPrinterPresetsSchema = z.object({
  /** False when PrusaSlicer or its bundles are not installed: only custom G-code can be chosen. */
  available: z.boolean(),
  presets: z.array(slicerPrinterPresetSchema),
});
export type SlicerPrinterPresets = z.infer<typeof slicerPrinterPresetsSchema>;
