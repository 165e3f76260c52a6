import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { FulfillmentRecord } from '@layerline/contracts';
import { date, money } from '../orders/order-format.ts';

const outside = { target: '_blank', rel: 'noopener noreferrer' } as const;
/** Only web addresses become links (a stored URL is data, never script). */
const isWebUrl = (url: string): boolean => /^https?:\/\//i.test(url);

/** One row per shipment: what it cost, how it went and where it is. Admins also see whose it is. */
export function FulfillmentTable({ records, showSeller }: { records: readonly FulfillmentRecord[]; showSeller: boolean }) {
  return (
    <TableContainer>
      <Table size="small" aria-label="Fulfilment history">
        <TableHead>
          <TableRow>
            <TableCell>Order</TableCell>
            {showSeller ? <TableCell>Seller</TableCell> : null}
            <TableCell>Channel</TableCell>
            <TableCell>Buyer</TableCell>
            <TableCell>Items</TableCell>
            <TableCell align="right">Print cost</TableCell>
            <TableCell align="right">Packaging</TableCell>
            <TableCell align="right">Shipping</TableCell>
            <TableCell align="right">Total</TableCell>
            <TableCell align="right" title="What your card was charged for the order (less refunds), when it entered production">
              Charged
            </TableCell>
            <TableCell>Carrier</TableCell>
            <TableCell>Tracking</TableCell>
            <TableCell>Label</TableCell>
            <TableCell>Shipped</TableCell>
            <TableCell>Delivered</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {records.map((r) => (
            <TableRow key={r.id} data-testid="fulfillment-row">
              <TableCell>{r.orderNumber}</TableCell>
              {showSeller ? <TableCell>{r.sellerName}</TableCell> : null}
              <TableCell>{r.channel}</TableCell>
              <TableCell>{r.buyerName || '—'}</TableCell>
              <TableCell>
                {r.items.length === 0
                  ? '—'
                  : r.items.map((item, index) => (
                      <Typography key={index} variant="body2" title={item.title || undefined} noWrap>
                        {item.quantity} × {item.sku}
                      </Typography>
                    ))}
              </TableCell>
              <TableCell align="right">{money(r.printCostCents, r.currency)}</TableCell>
              <TableCell align="right">{money(r.packagingCents, r.currency)}</TableCell>
              <TableCell align="right">{money(r.shippingCents, r.currency)}</TableCell>
              <TableCell align="right">
                <strong>{money(r.totalCents, r.currency)}</strong>
              </TableCell>
              <TableCell align="right">{r.chargedCents === null ? '—' : money(r.chargedCents, r.currency)}</TableCell>
              <TableCell>
                {r.carrier || '—'}
                {r.service ? (
                  <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                    {r.service}
                  </Typography>
                ) : null}
              </TableCell>
              <TableCell>
                {r.trackingNumber && isWebUrl(r.trackingUrl) ? (
                  <Link href={r.trackingUrl} {...outside}>
                    {r.trackingNumber}
                  </Link>
                ) : (
                  r.trackingNumber || '—'
                )}
              </TableCell>
              <TableCell>
                {r.labelUrl ? (
                  <Link href={r.labelUrl} {...outside}>
                    PDF
                  </Link>
                ) : (
                  '—'
                )}
              </TableCell>
              <TableCell>{r.shippedAt ? date(r.shippedAt) : '—'}</TableCell>
              <TableCell>{r.deliveredAt ? date(r.deliveredAt) : '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
