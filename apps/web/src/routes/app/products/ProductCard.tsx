import { useState } from 'react';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import PhotoLibraryOutlinedIcon from '@mui/icons-material/PhotoLibraryOutlined';
import type { Product } from '@layerline/contracts';
import { formatUsd } from '../designs/design-format.ts';
import { ListingImagesDialog } from './ListingImagesDialog.tsx';

/** One product: its variants with SKU, packaging, parts, unit cost and how many listings sell it. */
export function ProductCard({
  product,
  onEdit,
  onDelete,
}: {
  product: Product;
  onEdit(): void;
  onDelete(): void;
}) {
  const [showImages, setShowImages] = useState(false);
  return (
    <Card variant="outlined" sx={{ borderRadius: 3 }} data-testid="product-card" data-product-name={product.name}>
      <CardContent>
        <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'flex-start', gap: 2 }}>
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="h6" component="h2" sx={{ overflowWrap: 'anywhere' }}>
              {product.name}
            </Typography>
            {product.description ? (
              <Typography color="text.secondary" variant="body2" sx={{ whiteSpace: 'pre-line', mt: 0.5 }}>
                {product.description}
              </Typography>
            ) : null}
          </Box>
          <Box sx={{ display: 'flex', flexShrink: 0 }}>
            <Tooltip title="Listing images">
              <IconButton onClick={() => setShowImages(true)} aria-label={`Listing images of ${product.name}`} data-testid="product-listing-images">
                <PhotoLibraryOutlinedIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title="Edit">
              <IconButton onClick={onEdit} aria-label={`Edit ${product.name}`} data-testid="product-edit">
                <EditOutlinedIcon />
              </IconButton>
            </Tooltip>
            <Tooltip title="Delete">
              <IconButton onClick={onDelete} aria-label={`Delete ${product.name}`} data-testid="product-delete">
                <DeleteOutlineIcon />
              </IconButton>
            </Tooltip>
          </Box>
        </Box>
        <TableContainer sx={{ mt: 1 }}>
          <Table size="small" aria-label={`Variants of ${product.name}`}>
            <TableHead>
              <TableRow>
                <TableCell>Variant</TableCell>
                <TableCell>SKU</TableCell>
                <TableCell>Packaging</TableCell>
                <TableCell>Printed parts</TableCell>
                <TableCell align="right">Unit cost</TableCell>
                <TableCell align="right">Linked listings</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {product.variants.map((variant) => (
                <TableRow key={variant.id} data-testid="variant-row" data-sku={variant.sku}>
                  <TableCell>{variant.name}</TableCell>
                  <TableCell>
                    <Box component="code" sx={{ fontFamily: 'monospace' }} data-testid="variant-sku-cell">
                      {variant.sku}
                    </Box>
                  </TableCell>
                  <TableCell>{variant.packaging}</TableCell>
                  <TableCell>
                    {variant.parts.map((part) => (
                      <Typography key={part.printConfigId} variant="body2">
                        {part.quantity} × {part.designName}{' '}
                        <Box component="span" sx={{ color: 'text.secondary' }}>
                          ({part.configName})
                        </Box>
                      </Typography>
                    ))}
                  </TableCell>
                  <TableCell align="right" data-testid="variant-unit-cost">
                    {variant.unitCostUsd === null ? (
                      <Tooltip title="A part has no quote yet">
                        <span>—</span>
                      </Tooltip>
                    ) : (
                      formatUsd(variant.unitCostUsd)
                    )}
                  </TableCell>
                  <TableCell align="right">
                    <Chip
                      size="small"
                      label={variant.linkedListings}
                      color={variant.linkedListings > 0 ? 'success' : 'default'}
                      variant={variant.linkedListings > 0 ? 'filled' : 'outlined'}
                      aria-label={`${variant.linkedListings} linked listing${variant.linkedListings === 1 ? '' : 's'}`}
                      data-testid="variant-linked-listings"
                    />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </CardContent>
      <ListingImagesDialog productId={product.id} productName={product.name} open={showImages} onClose={() => setShowImages(false)} />
    </Card>
  );
}
