import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LandingTestimonial, Testimonial } from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

/** The landing page's testimonial: the operator's, or the sample (`sample: true`). */
export function useLandingTestimonial() {
  return useQuery({
    queryKey: queryKeys.landingTestimonial,
    queryFn: () => apiFetch<LandingTestimonial>('/api/site/testimonial'),
  });
}

export function useSetTestimonial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (testimonial: Testimonial) =>
      apiFetch<LandingTestimonial>('/api/admin/site/testimonial', { method: 'PUT', json: testimonial }),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.landingTestimonial, saved),
  });
}

export function useResetTestimonial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<void>('/api/admin/site/testimonial', { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.landingTestimonial }),
  });
}
