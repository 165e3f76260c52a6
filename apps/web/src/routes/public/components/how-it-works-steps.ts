import type { ComponentType } from 'react';
import type { SvgIconProps } from '@mui/material/SvgIcon';
import CloudUploadIcon from '@mui/icons-material/CloudUpload';
import LinkIcon from '@mui/icons-material/Link';
import StorefrontIcon from '@mui/icons-material/Storefront';

export interface HowItWorksStep {
  id: string;
  title: string;
  description: string;
  icon: ComponentType<SvgIconProps>;
}

/** §2: the three steps, shared by the landing page's summary and the How It Works page. */
export const HOW_IT_WORKS_STEPS: readonly HowItWorksStep[] = [
  {
    id: 'upload',
    title: 'Upload your 3D model',
    description:
      'Drop in an STL, 3MF or OBJ file. We check that it prints, weigh it in the filament you choose and give you a quote before anything is made.',
    icon: CloudUploadIcon,
  },
  {
    id: 'link',
    title: 'Link your products',
    description:
      'Connect your shop and match each listing to a design by its SKU. From then on, every order for that listing comes to us automatically.',
    icon: LinkIcon,
  },
  {
    id: 'sell',
    title: 'Start selling',
    description:
      'When a customer buys, we print, pack and ship the order and post the tracking number back to your marketplace. You focus on designs and customers.',
    icon: StorefrontIcon,
  },
];
