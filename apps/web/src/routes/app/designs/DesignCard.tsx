import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { Design } from '@layerline/contracts';
import { formatBytes, formatCount, formatDimensions, formatQuoteLine } from './design-format.ts';
import { ProblemChips } from './ProblemChips.tsx';

/** A design in a grid: its picture, measurements, checks and the price of its first configuration. */
export function DesignCard({ design, onOpen }: { design: Design; onOpen(designId: string): void }) {
  const defaultConfig = design.printConfigs[0];
  const quote = defaultConfig?.quote ?? null;
  return (
    <Card
      variant="outlined"
      sx={{ height: '100%', borderRadius: 2.5 }}
      data-testid="design-card"
      data-design-id={design.id}
      data-name={design.name}
    >
      <CardActionArea
        onClick={() => onOpen(design.id)}
        sx={{ height: '100%', display: 'flex', flexDirection: 'column', alignItems: 'stretch' }}
        aria-label={`Open ${design.name}`}
      >
        <Box
          sx={{
            position: 'relative',
            aspectRatio: { xs: '16 / 10', sm: '4 / 3' },
            bgcolor: 'action.hover',
            display: 'grid',
            placeItems: 'center',
            overflow: 'hidden',
          }}
        >
          <Box
            component="img"
            src={design.thumbnailUrl}
            alt={`Picture of ${design.name}`}
            loading="lazy"
            data-testid="design-thumbnail"
            sx={{ width: '100%', height: '100%', objectFit: 'contain' }}
          />
          <Chip
            label={design.format.toUpperCase()}
            size="small"
            sx={{ position: 'absolute', top: 8, left: 8, bgcolor: 'background.paper', fontWeight: 600 }}
          />
        </Box>
        <CardContent sx={{ flex: 1, display: 'flex', flexDirection: 'column', gap: 1 }}>
          <Box>
            <Typography
              variant="subtitle1"
              component="h3"
              sx={{ fontWeight: 700, lineHeight: 1.3, overflowWrap: 'anywhere' }}
            >
              {design.name}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {formatDimensions(design.bboxMm)}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {formatBytes(design.sizeBytes)} · {formatCount(design.triangles)} triangles
            </Typography>
          </Box>
          <ProblemChips problems={design.problems} max={2} />
          <Box sx={{ mt: 'auto', pt: 1, borderTop: 1, borderColor: 'divider' }}>
            {quote && defaultConfig ? (
              <>
                <Typography sx={{ fontWeight: 700 }} data-testid="card-quote">
                  {formatQuoteLine(quote)}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {defaultConfig.name}
                  {design.printConfigs.length > 1
                    ? ` · +${design.printConfigs.length - 1} more configuration${design.printConfigs.length > 2 ? 's' : ''}`
                    : ''}
                </Typography>
              </>
            ) : (
              <Typography variant="body2" color="text.secondary">
                No quote yet
              </Typography>
            )}
          </Box>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}
