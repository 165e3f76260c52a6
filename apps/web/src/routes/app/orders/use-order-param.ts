import { useDetailParam } from '../../../app/navigation/use-detail-param.ts';

/** The order whose detail is open, in `?order=<id>`. */
export function useOrderParam() {
  const { id, open, close } = useDetailParam('order');
  return { orderId: id, openOrder: open, closeOrder: close };
}
