import { useId, useState } from 'react';
import Box from '@mui/material/Box';
import InputAdornment from '@mui/material/InputAdornment';
import OutlinedInput from '@mui/material/OutlinedInput';
import Slider from '@mui/material/Slider';
import Typography from '@mui/material/Typography';
import { clampToField, parseTypedNumber, type CalculatorField } from './calculator.ts';

export interface CalculatorInputProps {
  label: string;
  field: CalculatorField;
  value: number;
  onChange(value: number): void;
  testId: string;
  prefix?: string;
  suffix?: string;
}

/**
 * A calculator number: a slider for quick changes and a box for typing an exact value. Typed
 * values are clamped to the range; a number above the maximum is replaced at once (more digits
 * could only make it bigger), one below the minimum only when the box loses focus (the visitor
 * may still be typing "0.5").
 */
export function CalculatorInput({
  label,
  field,
  value,
  onChange,
  testId,
  prefix,
  suffix,
}: CalculatorInputProps) {
  const labelId = useId();
  const [draft, setDraft] = useState(String(value));

  const [shownValue, setShownValue] = useState(value);

  // The slider moved (or the value was clamped): show the new value unless the draft already means it.
  if (value !== shownValue) {
    setShownValue(value);
    const typed = parseTypedNumber(draft);
    if (typed === null || clampToField(typed, field) !== value) setDraft(String(value));
  }

  const onType = (text: string) => {
    const typed = parseTypedNumber(text);
    if (typed === null) {
      setDraft(text);
      return;
    }
    const clamped = clampToField(typed, field);
    setDraft(typed > field.max ? String(clamped) : text);
    onChange(clamped);
  };

  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2 }}>
        <Typography id={labelId} component="label" htmlFor={`${labelId}-box`} sx={{ fontWeight: 600 }}>
          {label}
        </Typography>
        {/* The bare input, not a TextField: TextField brings the whole Select (menus, popovers) into the landing page's download. */}
        <OutlinedInput
          id={`${labelId}-box`}
          size="small"
          value={draft}
          onChange={(event) => onType(event.target.value)}
          onBlur={() => setDraft(String(value))}
          sx={{ width: 132, flexShrink: 0 }}
          startAdornment={prefix ? <InputAdornment position="start">{prefix}</InputAdornment> : undefined}
          endAdornment={suffix ? <InputAdornment position="end">{suffix}</InputAdornment> : undefined}
          inputProps={{
            inputMode: field.decimals > 0 ? 'decimal' : 'numeric',
            'data-testid': testId,
            'aria-describedby': `${labelId}-range`,
            style: { textAlign: 'right', fontVariantNumeric: 'tabular-nums' },
          }}
        />
      </Box>
      <Slider
        value={value}
        min={field.min}
        max={field.max}
        step={field.step}
        onChange={(_event, next) =>
          onChange(clampToField(Array.isArray(next) ? (next[0] ?? value) : next, field))
        }
        slotProps={{ input: { 'aria-labelledby': labelId, 'data-testid': `${testId}-slider` } as object }}
        sx={{ mt: 0.5 }}
      />
      <Typography id={`${labelId}-range`} variant="caption" color="text.secondary">
        {prefix ?? ''}
        {field.min}–{prefix ?? ''}
        {field.max}
        {suffix ? ` ${suffix}` : ''}
      </Typography>
    </Box>
  );
}
