import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import type { Order } from '@layerline/contracts';
import { useOrderableVariants, useSubmitManualOrder } from '../../../api/order-api.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { LoadingSpinner } from '../../../components/LoadingSpinner.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import {
  ADDRESS_FIELDS,
  EMPTY_ADDRESS,
  validateManualOrder,
  type AddressField,
  type ItemLine,
} from './manual-order-form.ts';

let nextLineKey = 1;
const newLine = (): ItemLine => ({ key: nextLineKey++, sku: '', quantity: '1' });

export default function SubmitOrderPage() {
  const { showToast } = useToast();
  const variants = useOrderableVariants();
  const submitOrder = useSubmitManualOrder();
  const [lines, setLines] = useState<ItemLine[]>(() => [newLine()]);
  const [address, setAddress] = useState<Record<AddressField, string>>(EMPTY_ADDRESS);
  const [note, setNote] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [placed, setPlaced] = useState<Order | null>(null);

  if (variants.isPending) return <LoadingSpinner label="Loading your products" />;
  const catalogue = variants.data ?? null;
  const noProducts = catalogue !== null && catalogue.length === 0;

  function updateLine(key: number, change: Partial<ItemLine>) {
    setLines((current) => current.map((line) => (line.key === key ? { ...line, ...change } : line)));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const result = validateManualOrder(lines, address, note);
    setErrors(result.errors);
    if (!result.input) return;
    submitOrder.mutate(result.input, {
      onSuccess: (order) => {
        showToast(`Order ${order.externalId} placed`);
        setPlaced(order);
        setLines([newLine()]);
        setAddress(EMPTY_ADDRESS);
        setNote('');
      },
      onError: (error) => showToast(error.message, 'error'),
    });
  }

  const field = (
    name: AddressField,
    label: string,
    props: { required?: boolean; autoComplete?: string } = {},
  ) => (
    <TextField
      key={name}
      name={name}
      label={label}
      required={props.required}
      autoComplete={props.autoComplete}
      value={address[name]}
      error={Boolean(errors[`shippingAddress.${name}`])}
      helperText={errors[`shippingAddress.${name}`]}
      onChange={(event) =>
        setAddress((current) => ({
          ...current,
          [name]: name === 'country' ? event.target.value.toUpperCase() : event.target.value,
        }))
      }
      fullWidth
      size="small"
    />
  );

  return (
    <Box sx={{ maxWidth: 880 }}>
      <PageHeading
        title="Submit Order"
        subtitle="Place a manual order for your own products; we print, pack and ship it."
      />

      {placed ? (
        <Alert severity="success" sx={{ mb: 3 }} data-testid="order-placed" onClose={() => setPlaced(null)}>
          Order <strong>{placed.externalId}</strong> is placed
          {placed.status === 'on_hold' ? ' and on hold' : ''}.{' '}
          <Link component={RouterLink} to={`/orders?order=${encodeURIComponent(placed.id)}`}>
            View the order
          </Link>
        </Alert>
      ) : null}

      {catalogue === null ? (
        <Alert severity="info" sx={{ mb: 3 }}>
          Your product list is not available right now, so type each item’s SKU; it must be one of your
          product variants.
        </Alert>
      ) : null}
      {noProducts ? (
        <Alert severity="info" sx={{ mb: 3 }}>
          You have no products yet.{' '}
          <Link component={RouterLink} to="/products">
            Create a product
          </Link>{' '}
          first: an order is made of your product variants.
        </Alert>
      ) : null}

      <Box
        component="form"
        noValidate
        onSubmit={submit}
        sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}
      >
        <Card component="section" aria-label="Items">
          <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
            <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
              Items
            </Typography>
            {errors.items ? (
              <Typography color="error" variant="body2" sx={{ mb: 1 }}>
                {errors.items}
              </Typography>
            ) : null}
            <Stack spacing={2}>
              {lines.map((line, index) => (
                <Box
                  key={line.key}
                  sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}
                  data-testid="order-line"
                >
                  {catalogue && catalogue.length > 0 ? (
                    <TextField
                      select
                      label="Product"
                      size="small"
                      value={line.sku}
                      onChange={(event) => updateLine(line.key, { sku: event.target.value })}
                      error={Boolean(errors[`items.${index}.sku`])}
                      helperText={errors[`items.${index}.sku`]}
                      sx={{ flex: 1, minWidth: 0 }}
                      slotProps={{ htmlInput: { 'data-testid': 'line-product' } }}
                    >
                      {catalogue.map((variant) => (
                        <MenuItem key={variant.variantId} value={variant.sku}>
                          {variant.label} ({variant.sku})
                        </MenuItem>
                      ))}
                    </TextField>
                  ) : (
                    <TextField
                      label="SKU"
                      size="small"
                      value={line.sku}
                      onChange={(event) => updateLine(line.key, { sku: event.target.value })}
                      error={Boolean(errors[`items.${index}.sku`])}
                      helperText={errors[`items.${index}.sku`]}
                      sx={{ flex: 1, minWidth: 0 }}
                      slotProps={{ htmlInput: { 'data-testid': 'line-sku' } }}
                    />
                  )}
                  <TextField
                    label="Quantity"
                    size="small"
                    type="number"
                    value={line.quantity}
                    onChange={(event) => updateLine(line.key, { quantity: event.target.value })}
                    error={Boolean(errors[`items.${index}.quantity`])}
                    helperText={errors[`items.${index}.quantity`]}
                    sx={{ width: 120 }}
                    slotProps={{ htmlInput: { min: 1, max: 1000, 'data-testid': 'line-quantity' } }}
                  />
                  <IconButton
                    aria-label="Remove item"
                    disabled={lines.length === 1}
                    onClick={() => setLines((current) => current.filter((other) => other.key !== line.key))}
                  >
                    <DeleteOutlineIcon />
                  </IconButton>
                </Box>
              ))}
            </Stack>
            <Button
              startIcon={<AddIcon />}
              onClick={() => setLines((current) => [...current, newLine()])}
              sx={{ mt: 2 }}
              disabled={lines.length >= 100}
            >
              Add item
            </Button>
          </CardContent>
        </Card>

        <Card component="section" aria-label="Ship to">
          <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
            <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
              Ship to
            </Typography>
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
              {ADDRESS_FIELDS.map((spec) => field(spec.name, spec.label, spec))}
            </Box>
          </CardContent>
        </Card>

        <Card component="section" aria-label="Note">
          <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
            <TextField
              label="Note for the print farm (optional)"
              multiline
              minRows={2}
              fullWidth
              value={note}
              onChange={(event) => setNote(event.target.value)}
              error={Boolean(errors.note)}
              helperText={errors.note}
              slotProps={{ htmlInput: { maxLength: 1000 } }}
            />
          </CardContent>
        </Card>

        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <Button
            type="submit"
            variant="contained"
            size="large"
            disabled={submitOrder.isPending || noProducts}
          >
            {submitOrder.isPending ? 'Placing order…' : 'Place order'}
          </Button>
        </Box>
      </Box>
    </Box>
  );
}
