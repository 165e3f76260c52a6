import CloudUploadOutlinedIcon from '@mui/icons-material/CloudUploadOutlined';
import { NotAvailableYet } from '../../../components/NotAvailableYet.tsx';

const WILL_LET_YOU = [
  'Drag and drop STL, 3MF or OBJ files',
  "Get a cost estimate from the model's volume",
  'Save the design for use in products',
] as const;

/** Placeholder until this capability ships; replace the body with the real page. */
export default function UploadDesignPage() {
  return (
    <NotAvailableYet
      title="Upload Design"
      summary="Add a new 3D design file to your library."
      willLetYou={WILL_LET_YOU}
      meanwhile={{
        label: 'Go to your dashboard',
        to: '/dashboard',
        explanation: 'Meanwhile, your dashboard shows what to set up first.',
      }}
      icon={<CloudUploadOutlinedIcon />}
    />
  );
}
