import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import { AuthCard } from '../AuthCard.tsx';
import { RegisterForm } from './RegisterForm.tsx';

export default function RegisterPage() {
  return (
    <Box sx={{ px: 2, py: { xs: 4, md: 8 } }}>
      <AuthCard
        title="Create your Layerline account"
        subtitle="Free to use. You only pay when we print and ship an order."
        footer={
          <>
            Already have an account?{' '}
            <Link component={RouterLink} to="/login">
              Log in
            </Link>
          </>
        }
      >
        <RegisterForm />
      </AuthCard>
    </Box>
  );
}
