import AddBoxOutlinedIcon from '@mui/icons-material/AddBoxOutlined';
import AdminPanelSettingsOutlinedIcon from '@mui/icons-material/AdminPanelSettingsOutlined';
import CategoryOutlinedIcon from '@mui/icons-material/CategoryOutlined';
import CreditCardOutlinedIcon from '@mui/icons-material/CreditCardOutlined';
import DashboardOutlinedIcon from '@mui/icons-material/DashboardOutlined';
import HandshakeOutlinedIcon from '@mui/icons-material/HandshakeOutlined';
import HistoryIcon from '@mui/icons-material/History';
import LinkIcon from '@mui/icons-material/Link';
import EmailOutlinedIcon from '@mui/icons-material/EmailOutlined';
import LocalShippingOutlinedIcon from '@mui/icons-material/LocalShippingOutlined';
import PrecisionManufacturingOutlinedIcon from '@mui/icons-material/PrecisionManufacturingOutlined';
import PrintOutlinedIcon from '@mui/icons-material/PrintOutlined';
import ReportProblemOutlinedIcon from '@mui/icons-material/ReportProblemOutlined';
import SettingsOutlinedIcon from '@mui/icons-material/SettingsOutlined';
import ShoppingCartCheckoutIcon from '@mui/icons-material/ShoppingCartCheckout';
import StorefrontOutlinedIcon from '@mui/icons-material/StorefrontOutlined';
import ViewInArOutlinedIcon from '@mui/icons-material/ViewInArOutlined';
import type { SideNavIcon as SideNavIconName } from './navigation.ts';

const ICONS = {
  dashboard: DashboardOutlinedIcon,
  create: AddBoxOutlinedIcon,
  designs: ViewInArOutlinedIcon,
  products: CategoryOutlinedIcon,
  order: ShoppingCartCheckoutIcon,
  history: HistoryIcon,
  billing: CreditCardOutlinedIcon,
  settings: SettingsOutlinedIcon,
  store: StorefrontOutlinedIcon,
  link: LinkIcon,
  affiliate: HandshakeOutlinedIcon,
  admin: AdminPanelSettingsOutlinedIcon,
  shipping: LocalShippingOutlinedIcon,
  printer: PrintOutlinedIcon,
  production: PrecisionManufacturingOutlinedIcon,
  email: EmailOutlinedIcon,
  claim: ReportProblemOutlinedIcon,
} satisfies Record<SideNavIconName, unknown>;

export function SideNavIcon({ name }: { name: SideNavIconName }) {
  const Icon = ICONS[name];
  return <Icon fontSize="small" />;
}
