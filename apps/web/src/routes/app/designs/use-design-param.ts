import { useDetailParam } from '../../../app/navigation/use-detail-param.ts';

/** The design whose detail is open, in `?design=<id>`. */
export function useDesignParam() {
  const { id, open, close } = useDetailParam('design');
  return { designId: id, openDesign: open, closeDesign: close };
}
