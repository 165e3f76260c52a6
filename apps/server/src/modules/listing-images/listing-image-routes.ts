import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { LISTING_IMAGE_ANGLES, productListingImagesSchema, type ListingImageAngle } from '@layerline/contracts';
import { requireViewer } from '../../http/viewer.ts';
import type { Actor, ListingImageService } from './listing-image-service.ts';

const tags = ['listing images'];
const productParams = z.object({ id: z.uuid('Not a valid id') }).strict();
const imageFiles = LISTING_IMAGE_ANGLES.map((angle) => `${angle}.png`) as [`${ListingImageAngle}.png`, ...`${ListingImageAngle}.png`[]];
const imageParams = z.object({ configId: z.uuid('Not a valid id'), file: z.enum(imageFiles, `One of ${imageFiles.join(', ')}`) }).strict();
const configParams = z.object({ configId: z.uuid('Not a valid id') }).strict();

function actorOf(request: FastifyRequest): Actor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Listing images (issue 24, point 5): a product's renders, each PNG and a zip per configuration. */
export function registerListingImageRoutes(app: FastifyInstance, deps: { listingImages: ListingImageService }): void {
  const { listingImages } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/products/:id/listing-images',
    { schema: { tags, summary: 'The product’s listing images: per variant, per print configuration, 2000 × 2000 PNGs from four angles (owner or admin)', params: productParams, response: { 200: productListingImagesSchema } } },
    async (request) => listingImages.ofProduct(actorOf(request), request.params.id),
  );

  api.post(
    '/api/products/:id/listing-images',
    { schema: { tags, summary: 'Render the product’s missing or failed listing images again (configurations already sliced exactly)', params: productParams, response: { 200: productListingImagesSchema } } },
    async (request) => listingImages.requestForProduct(actorOf(request), request.params.id),
  );

  api.get(
    '/api/listing-images/:configId/:file',
    { schema: { tags, summary: 'One listing image (front, right, back or top) as a PNG download', params: imageParams } },
    async (request, reply) => {
      const angle = request.params.file.replace(/\.png$/, '') as ListingImageAngle;
      const image = await listingImages.image(actorOf(request), request.params.configId, angle);
      return reply
        .type('image/png')
        .header('content-disposition', `attachment; filename="${image.fileName}"`)
        .header('cache-control', 'private, no-store')
        .send(image.png);
    },
  );

  api.get(
    '/api/listing-images/:configId/images.zip',
    { schema: { tags, summary: 'Every listing image of one print configuration as a zip', params: configParams } },
    async (request, reply) => {
      const zip = await listingImages.zip(actorOf(request), request.params.configId);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${zip.fileName}"`)
        .header('cache-control', 'private, no-store')
        .send(zip.stream);
    },
  );
}
