import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { slicerPrinterPresetsSchema, type SlicerPrinterPresets } from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';

/**
 * The printer presets the installed PrusaSlicer bundles offer, for the printers page's printer
 * profile (docs/api.md, "Printers"; docs/slicing-profiles.md). Admins only. The bundles are read by
 * the prusa-slicer integration (`listPrinterPresets`), handed in by the app.
 */
export function registerSlicerPresetRoutes(app: FastifyInstance, deps: { listPresets: () => Promise<SlicerPrinterPresets> }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/admin/slicer/printer-presets',
    {
      schema: {
        tags: ['printers'],
        summary: 'PrusaSlicer’s bundled FFF printer presets, read from the installed vendor bundles',
        response: { 200: slicerPrinterPresetsSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return deps.listPresets();
    },
  );
}
