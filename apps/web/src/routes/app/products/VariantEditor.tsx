import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import IconButton from '@mui/material/IconButton';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { formatUsd } from '../designs/design-format.ts';
import { PACKAGING_LIST_ID, emptyPart, variantCost, type ConfigOption, type PartDraft, type VariantDraft } from './product-draft.ts';

/** Options grouped by design, for a native select (accessible and quick to use with a keyboard). */
function groupByDesign(options: readonly ConfigOption[]): [string, ConfigOption[]][] {
  const groups = new Map<string, ConfigOption[]>();
  for (const option of options) {
    const key = `${option.designName}\u0000${option.designId}`;
    groups.set(key, [...(groups.get(key) ?? []), option]);
  }
  return [...groups.entries()].map(([key, list]) => [key.split('\u0000')[0] ?? '', list]);
}

const optionLabel = (o: ConfigOption) =>
  `${o.configName}${o.unitCostUsd === null ? ' (no quote yet)' : ` · ${formatUsd(o.unitCostUsd)}`}`;

/** One variant: name, SKU, packaging, and its printed parts (configuration × quantity), with its live unit cost. */
export function VariantEditor({
  index,
  variant,
  options,
  onChange,
  onRemove,
}: {
  index: number;
  variant: VariantDraft;
  options: readonly ConfigOption[];
  onChange(next: VariantDraft): void;
  onRemove: (() => void) | undefined;
}) {
  const cost = variantCost(variant, options);
  const groups = groupByDesign(options);
  const label = variant.name.trim() || `Variant ${index + 1}`;
  const setPart = (key: string, next: PartDraft) =>
    onChange({ ...variant, parts: variant.parts.map((p) => (p.key === key ? next : p)) });

  return (
    <Card variant="outlined" data-testid="variant-editor" component="fieldset" sx={{ m: 0, p: 0 }}>
      <CardContent>
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1, mb: 2 }}>
          <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600 }}>
            {label}
          </Typography>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Typography color="text.secondary" variant="body2">
              Unit cost{' '}
              <Box component="strong" sx={{ color: 'text.primary' }} data-testid="variant-editor-cost">
                {cost === null ? '—' : formatUsd(cost)}
              </Box>
            </Typography>
            {onRemove ? (
              <Tooltip title="Remove this variant">
                <IconButton onClick={onRemove} aria-label={`Remove ${label}`} size="small">
                  <DeleteOutlineIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            ) : null}
          </Box>
        </Box>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr 1fr' } }}>
          <TextField
            label="Variant name"
            required
            size="small"
            value={variant.name}
            onChange={(event) => onChange({ ...variant, name: event.target.value })}
            slotProps={{ htmlInput: { maxLength: 120, 'data-testid': 'variant-name' } }}
          />
          <TextField
            label="SKU"
            required
            size="small"
            value={variant.sku}
            onChange={(event) => onChange({ ...variant, sku: event.target.value })}
            helperText="As on your marketplace listing"
            slotProps={{ htmlInput: { maxLength: 100, 'data-testid': 'variant-sku', spellCheck: false } }}
          />
          <TextField
            label="Packaging"
            size="small"
            value={variant.packaging}
            onChange={(event) => onChange({ ...variant, packaging: event.target.value })}
            helperText="Pick one or type your own"
            slotProps={{ htmlInput: { maxLength: 120, list: PACKAGING_LIST_ID, 'data-testid': 'variant-packaging' } }}
          />
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ mt: 2, mb: 1 }}>
          Printed parts of one unit
        </Typography>
        {variant.parts.map((part) => (
          <Box
            key={part.key}
            sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', mb: 1.5 }}
            data-testid="part-editor"
          >
            <TextField
              select
              label="Design and print configuration"
              size="small"
              value={part.printConfigId}
              onChange={(event) => setPart(part.key, { ...part, printConfigId: event.target.value })}
              sx={{ flex: 1, minWidth: 0 }}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'part-config' } }}
            >
              <option value="">Choose…</option>
              {groups.map(([designName, list]) => (
                <optgroup key={list[0]?.designId ?? designName} label={designName}>
                  {list.map((option) => (
                    <option key={option.printConfigId} value={option.printConfigId}>
                      {`${designName} — ${optionLabel(option)}`}
                    </option>
                  ))}
                </optgroup>
              ))}
            </TextField>
            <TextField
              label="Quantity"
              type="number"
              size="small"
              value={part.quantity}
              onChange={(event) => setPart(part.key, { ...part, quantity: event.target.value })}
              sx={{ width: 110 }}
              slotProps={{ htmlInput: { min: 1, max: 1000, step: 1, 'data-testid': 'part-quantity' } }}
            />
            <Tooltip title="Remove this part">
              <span>
                <IconButton
                  aria-label="Remove this part"
                  disabled={variant.parts.length <= 1}
                  onClick={() => onChange({ ...variant, parts: variant.parts.filter((p) => p.key !== part.key) })}
                  sx={{ mt: 0.5 }}
                >
                  <CloseIcon fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
          </Box>
        ))}
        <Button size="small" startIcon={<AddIcon />} onClick={() => onChange({ ...variant, parts: [...variant.parts, emptyPart()] })}>
          Add a part
        </Button>
      </CardContent>
    </Card>
  );
}
