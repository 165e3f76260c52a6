import type { ComponentType } from 'react';
import type { SvgIconProps } from '@mui/material/SvgIcon';
import BuildIcon from '@mui/icons-material/Build';
import CardGiftcardIcon from '@mui/icons-material/CardGiftcard';
import CategoryIcon from '@mui/icons-material/Category';
import DeveloperBoardIcon from '@mui/icons-material/DeveloperBoard';
import ExtensionIcon from '@mui/icons-material/Extension';
import HardwareIcon from '@mui/icons-material/Hardware';
import LocalShippingIcon from '@mui/icons-material/LocalShipping';
import PaletteIcon from '@mui/icons-material/Palette';
import PrecisionManufacturingIcon from '@mui/icons-material/PrecisionManufacturing';
import SavingsIcon from '@mui/icons-material/Savings';
import ScienceIcon from '@mui/icons-material/Science';
import StarIcon from '@mui/icons-material/Star';
import TrackChangesIcon from '@mui/icons-material/TrackChanges';
import WorkspacePremiumIcon from '@mui/icons-material/WorkspacePremium';

/** A landing-page card (§3: id, title, description, icon). */
export interface LandingItem {
  id: string;
  title: string;
  description: string;
  icon: ComponentType<SvgIconProps>;
}

/** A marketplace or integration we connect to (§3: id, src, alt, description, color). */
export interface PlatformTile {
  id: string;
  src: string;
  alt: string;
  description: string;
  color: string;
}

/** A frequently asked question (§3: question, answer). */
export interface FaqItem {
  question: string;
  answer: string;
}

/** §1: everything the print farm offers beyond a plain single-colour print. */
export const PRODUCTION_SERVICES: readonly LandingItem[] = [
  {
    id: 'multicolor',
    title: 'Multicolor & multimaterial',
    description:
      'Up to several colours or materials in one part, printed in a single run with clean colour changes.',
    icon: PaletteIcon,
  },
  {
    id: 'materials',
    title: 'PLA, PETG, ABS, ASA, TPU & Nylon',
    description:
      'From easy decorative PLA to UV-stable ASA, flexible TPU and tough Nylon: pick what your product needs.',
    icon: ScienceIcon,
  },
  {
    id: 'gluing',
    title: 'Gluing',
    description: 'Parts that print best apart are bonded for you, aligned and cured before they are packed.',
    icon: ExtensionIcon,
  },
  {
    id: 'threaded-inserts',
    title: 'Threaded inserts',
    description: 'Heat-set brass inserts for screws that hold, even after many assemblies.',
    icon: HardwareIcon,
  },
  {
    id: 'fasteners',
    title: 'Mechanical fasteners',
    description: 'Screws, nuts, pins and hinges fitted so your product arrives ready to use.',
    icon: BuildIcon,
  },
  {
    id: 'magnets',
    title: 'Magnet installation',
    description: 'Press-fit or embedded-mid-print magnets, placed with the right polarity every time.',
    icon: TrackChangesIcon,
  },
  {
    id: 'electronics',
    title: 'Electronics integration',
    description: 'LEDs, switches, batteries and small boards wired and mounted into your enclosures.',
    icon: DeveloperBoardIcon,
  },
  {
    id: 'packaging',
    title: 'Custom packaging & kitting',
    description: 'Your inserts, cards and stickers, and several items kitted into one parcel.',
    icon: CardGiftcardIcon,
  },
  {
    id: 'assembly',
    title: 'Multipart assembly',
    description: 'Multi-piece designs printed, finished and put together before they ship.',
    icon: CategoryIcon,
  },
  {
    id: 'production-runs',
    title: 'Production runs',
    description:
      'From a single order to batches for wholesale or a launch, on the same printers and settings.',
    icon: PrecisionManufacturingIcon,
  },
];

/** §1: the marketplaces named in the spec, plus the custom API. The marks are our own simple drawings. */
export const PLATFORM_TILES: readonly PlatformTile[] = [
  {
    id: 'etsy',
    src: '/media/platforms/etsy.svg',
    alt: 'Etsy',
    description: 'Orders and tracking sync with your Etsy shop.',
    color: '#F1641E',
  },
  {
    id: 'shopify',
    src: '/media/platforms/shopify.svg',
    alt: 'Shopify',
    description: 'Fulfil Shopify orders for your 3D-printed products.',
    color: '#5E8E3E',
  },
  {
    id: 'woocommerce',
    src: '/media/platforms/woocommerce.svg',
    alt: 'WooCommerce',
    description: 'Bring your WordPress store’s orders straight to the print farm.',
    color: '#7F54B3',
  },
  {
    id: 'ebay',
    src: '/media/platforms/ebay.svg',
    alt: 'eBay',
    description: 'Sell on eBay without keeping any stock on hand.',
    color: '#0064D2',
  },
  {
    id: 'amazon',
    src: '/media/platforms/amazon.svg',
    alt: 'Amazon',
    description: 'Ship Amazon orders made to order, with tracking.',
    color: '#FF9900',
  },
  {
    id: 'walmart',
    src: '/media/platforms/walmart.svg',
    alt: 'Walmart',
    description: 'Reach Walmart Marketplace buyers with printed-on-demand goods.',
    color: '#0071DC',
  },
  {
    id: 'tiktok-shop',
    src: '/media/platforms/tiktok-shop.svg',
    alt: 'TikTok Shop',
    description: 'Turn a video that took off into orders we print for you.',
    color: '#FE2C55',
  },
  {
    id: 'custom-api',
    src: '/media/platforms/custom-api.svg',
    alt: 'Custom API',
    description: 'Your own site or app? Send orders to our API.',
    color: '#f97316',
  },
];

/** §2: why sellers choose us. */
export const WHY_US: readonly LandingItem[] = [
  {
    id: 'etsy-star-seller',
    title: 'An Etsy star seller',
    description:
      'We sell our own 3D-printed products too, and hold Etsy’s star seller badge for fast shipping and happy buyers.',
    icon: StarIcon,
  },
  {
    id: 'experience',
    title: '10 years of experience',
    description:
      'Over a decade of printing for customers: we know which settings, materials and packaging hold up in the post.',
    icon: WorkspacePremiumIcon,
  },
  {
    id: 'shipping',
    title: 'Worldwide shipping & packaging',
    description:
      'Global delivery, packed to arrive in one piece, with tracking sent back to your marketplace.',
    icon: LocalShippingIcon,
  },
  {
    id: 'pay-when-you-sell',
    title: 'Pay only when you sell',
    description:
      '100% free to use, with no paywalls or recurring fees. Your card is charged only when an order is fulfilled.',
    icon: SavingsIcon,
  },
];

/** §2: the questions sellers ask before signing up. */
export const FAQ_ITEMS: readonly FaqItem[] = [
  {
    question: 'Is Layerline really free?',
    answer:
      'Yes. It is 100% free to use, with no paywalls or recurring fees. You pay the fulfilment cost of an order only when one of your customers buys, and we earn only when we fulfil it.',
  },
  {
    question: 'What does an order cost me?',
    answer:
      'A per-gram price for the filament you choose (from $0.04 a gram for PLA and PETG) plus a $0.036 per gram fulfilment charge. A 134 g PLA print costs $10.18. Shipping fees and taxes are not included in that price. Our pricing page has the whole table.',
  },
  {
    question: 'Which marketplaces can I connect?',
    answer:
      'Etsy, Shopify, WooCommerce, eBay, Amazon, Walmart and TikTok Shop, plus a custom API for your own site. Shipping labels go through ShipStation or Shippo.',
  },
  {
    question: 'Which files can I upload?',
    answer:
      'STL, 3MF and OBJ. Multipart designs are welcome: tell us how they go together and we assemble them.',
  },
  {
    question: 'Who can see my designs?',
    answer:
      'Only you and the print farm’s admins. Your files are used to quote and print your orders, never shared or sold, and you can delete them at any time. Our 3D design handling policy has the details.',
  },
  {
    question: 'Do you ship internationally?',
    answer:
      'Yes. We ship worldwide and pack every order to survive the journey; the tracking number goes back to your marketplace.',
  },
  {
    question: 'Can I run Layerline myself?',
    answer:
      'Yes. Layerline is open source and self-hostable: a print farm can run its own instance for its sellers. This site is one such instance.',
  },
];
