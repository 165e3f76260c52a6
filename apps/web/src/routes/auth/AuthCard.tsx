import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Typography from '@mui/material/Typography';
import { BrandMark } from '../../components/BrandLogo.tsx';

/** The card that frames the login and register forms. */
export function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <Card sx={{ width: '100%', maxWidth: 460, mx: 'auto' }}>
      <CardContent sx={{ p: { xs: 3, sm: 4 } }}>
        <Box sx={{ display: 'flex', justifyContent: 'center', mb: 2 }}>
          <BrandMark size={48} />
        </Box>
        <Typography variant="h5" component="h1" align="center">
          {title}
        </Typography>
        <Typography color="text.secondary" align="center" sx={{ mt: 0.5, mb: 3 }}>
          {subtitle}
        </Typography>
        {children}
        {footer ? (
          <Typography variant="body2" color="text.secondary" align="center" sx={{ mt: 3 }}>
            {footer}
          </Typography>
        ) : null}
      </CardContent>
    </Card>
  );
}
