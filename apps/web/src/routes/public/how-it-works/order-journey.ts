import type { ComponentType } from 'react';
import type { SvgIconProps } from '@mui/material/SvgIcon';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import LayersIcon from '@mui/icons-material/Layers';
import LocalShippingIcon from '@mui/icons-material/LocalShipping';
import PrintIcon from '@mui/icons-material/Print';
import ShoppingBagIcon from '@mui/icons-material/ShoppingBag';
import TrackChangesIcon from '@mui/icons-material/TrackChanges';

export interface OrderJourneyStage {
  id: string;
  title: string;
  description: string;
  icon: ComponentType<SvgIconProps>;
}

/** What happens between a customer's purchase and their parcel arriving. */
export const ORDER_JOURNEY: readonly OrderJourneyStage[] = [
  {
    id: 'order-arrives',
    title: 'An order arrives',
    description:
      'A customer buys a linked listing on your marketplace. The order reaches us on its own, matched to your design by its SKU, with the variant and shipping address.',
    icon: ShoppingBagIcon,
  },
  {
    id: 'slicing',
    title: 'Slicing',
    description:
      'Your design is sliced with the print configuration you approved when you were quoted: same material, same settings, every time.',
    icon: LayersIcon,
  },
  {
    id: 'printing',
    title: 'Printing',
    description:
      'It goes into the queue of our print farm. When it comes off the printer, supports are removed and the part is checked; any add-ons you ordered are done now.',
    icon: PrintIcon,
  },
  {
    id: 'packing',
    title: 'Packing',
    description: 'Packed to survive the journey, with your own inserts or packaging if you supplied them.',
    icon: Inventory2Icon,
  },
  {
    id: 'shipping',
    title: 'Shipping',
    description:
      'We buy the label through ShipStation or Shippo and hand the parcel to the carrier. We ship worldwide.',
    icon: LocalShippingIcon,
  },
  {
    id: 'tracking',
    title: 'Tracking back to your marketplace',
    description:
      'The tracking number is posted back to the order on your marketplace, which marks it shipped and lets your customer follow the parcel.',
    icon: TrackChangesIcon,
  },
  {
    id: 'charge',
    title: 'Your card is charged, only now',
    description:
      'The fulfilment cost of that order is charged to the card you stored. No order, no charge: there is no subscription and no monthly fee.',
    icon: CreditCardIcon,
  },
];
