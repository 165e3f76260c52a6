import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import { PolicyDocument, type PolicySection } from '../components/PolicyDocument.tsx';

/** Days after deleting a design within which it is gone from backups too. */
const BACKUP_PURGE_DAYS = 30;

const SECTIONS: readonly PolicySection[] = [
  {
    id: 'who-can-see',
    title: 'Who can see your files',
    body: (
      <>
        <p>
          A 3D design you upload can be opened by <strong>you</strong> (the seller whose account uploaded it)
          and by <strong>the print farm’s admins</strong>: the people who run this Layerline instance, quote
          your designs and print your orders. Nobody else can see or download it: not other sellers, not your
          customers, not visitors to this site.
        </p>
        <p>
          Admins open a design only to quote it, prepare it for printing, print an order for it, or answer a
          question you asked us about it.
        </p>
      </>
    ),
  },
  {
    id: 'what-we-use-them-for',
    title: 'What we use them for',
    body: (
      <>
        <p>Your designs are used for two things only:</p>
        <ul>
          <li>
            <strong>Quoting</strong>: measuring the model, checking that it prints, and working out the
            filament and cost per item.
          </li>
          <li>
            <strong>Printing</strong>: slicing and printing the orders your customers place for it.
          </li>
        </ul>
        <p>
          We do not use your designs to train models, to make products of our own, in our marketing, or for
          any purpose you did not ask for.
        </p>
      </>
    ),
  },
  {
    id: 'never-shared',
    title: 'Never shared or sold',
    body: (
      <p>
        We never share, sell, license or publish your designs. They are not sent to marketplaces, shipping
        providers or payment providers: those services receive order and shipping details only, never the
        model files.
      </p>
    ),
  },
  {
    id: 'ownership',
    title: 'You keep your rights',
    body: (
      <p>
        Uploading a design gives us no ownership of it. You keep every right you hold in your work; you allow
        us only to store it and to print it for your orders while it is on your account. Make sure you have
        the right to sell what you upload.
      </p>
    ),
  },
  {
    id: 'storage',
    title: 'How files are stored',
    body: (
      <ul>
        <li>
          Files are kept in this instance’s private storage and served only to signed-in users allowed to see
          them.
        </li>
        <li>Sliced copies made for printing are used for your orders only.</li>
        <li>Backups of the storage can be restored only by the print farm’s admins.</li>
      </ul>
    ),
  },
  {
    id: 'retention',
    title: 'How long we keep them',
    body: (
      <>
        <p>
          We keep a design <strong>for as long as it exists on your account</strong>. When it is deleted, the
          file is removed from storage straight away and from our backups within{' '}
          <strong>{BACKUP_PURGE_DAYS} days</strong>.
        </p>
        <p>
          Records of orders already printed (the order, its cost and tracking) stay in your fulfilment history
          for accounting; they do not keep a copy of the model.
        </p>
      </>
    ),
  },
  {
    id: 'deleting',
    title: 'Deleting a design',
    body: (
      <p>
        You may delete any of your designs at any time from your designs page. Orders for listings linked to
        it can no longer be printed from then on; orders already in production are finished. If you ask us to
        close your account, all of your designs are deleted the same way.
      </p>
    ),
  },
  {
    id: 'questions',
    title: 'Questions',
    body: (
      <p>
        Ask us anything about how your files are handled through the{' '}
        <Link component={RouterLink} to="/contact-us">
          contact form
        </Link>
        . How we handle your personal data is described in our{' '}
        <Link component={RouterLink} to="/privacy-policy">
          privacy policy
        </Link>
        .
      </p>
    ),
  },
];

export default function DesignHandlingPolicyPage() {
  return (
    <PolicyDocument
      title="3D Design Handling Policy"
      summary="Your designs are your business. Only you and the print farm’s admins can see them; they are used only to quote and print your orders, never shared or sold, and you can delete them whenever you like."
      lastUpdated="21 November 2026"
      sections={SECTIONS}
    />
  );
}
