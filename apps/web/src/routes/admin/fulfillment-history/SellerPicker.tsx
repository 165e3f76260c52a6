import { useState } from 'react';
import Autocomplete from '@mui/material/Autocomplete';
import TextField from '@mui/material/TextField';
import type { AdminUser } from '@layerline/contracts';
import { useAdminUsers } from '../../../api/admin.ts';
import { useDebouncedValue } from '../overview/use-debounced-value.ts';

/** A seller as the picker shows it. */
export interface PickedSeller {
  id: string;
  label: string;
}

const labelOf = (user: AdminUser): string => (user.businessName ? `${user.businessName} (${user.email})` : user.email);

/** Picks an account by name, email or business, searched as the admin types (the admin users list). */
export function SellerPicker({
  value,
  onChange,
  label,
  autoFocus,
}: {
  value: PickedSeller | null;
  onChange(seller: PickedSeller | null): void;
  label: string;
  autoFocus?: boolean;
}) {
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input.trim(), 300);
  const users = useAdminUsers(search, undefined, 20);
  const options: PickedSeller[] = (users.data?.items ?? []).map((user) => ({ id: user.id, label: labelOf(user) }));

  return (
    <Autocomplete
      size="small"
      options={options}
      value={value}
      loading={users.isFetching}
      // The server searches; every option it answers is a match.
      filterOptions={(x) => x}
      isOptionEqualToValue={(option, picked) => option.id === picked.id}
      getOptionLabel={(option) => option.label}
      onInputChange={(_, text) => setInput(text)}
      onChange={(_, picked) => onChange(picked)}
      noOptionsText={users.isError ? users.error.message : 'No account matches'}
      renderInput={(params) => <TextField {...params} label={label} autoFocus={autoFocus} />}
    />
  );
}
