import { useCallback } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';

const PARAM = 'order';

/** The order whose detail is open, in `?order=<id>`: back closes it, and the link can be shared. */
export function useOrderParam() {
  const [searchParams, setSearchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const orderId = searchParams.get(PARAM);

  const openOrder = useCallback(
    (id: string) => {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set(PARAM, id);
          return next;
        },
        { state: { orderOpenedHere: true } },
      );
    },
    [setSearchParams],
  );

  const openedHere = (location.state as { orderOpenedHere?: boolean } | null)?.orderOpenedHere === true;
  const closeOrder = useCallback(() => {
    if (openedHere) {
      void navigate(-1);
      return;
    }
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(PARAM);
        return next;
      },
      { replace: true },
    );
  }, [openedHere, navigate, setSearchParams]);

  return { orderId, openOrder, closeOrder };
}
