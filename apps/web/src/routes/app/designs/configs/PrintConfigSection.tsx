import { useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import type { Design } from '@layerline/contracts';
import { useCreatePrintConfig } from '../../../../api/designs.ts';
import { useToast } from '../../../../app/toast/ToastProvider.tsx';
import { formatUsd } from '../design-format.ts';
import { PrintConfigEditor } from './PrintConfigEditor.tsx';

/**
 * The print configurations of a design as tabs (name and price on each), the selected one open
 * for editing. A new configuration starts as a copy of the selected one, so variants are quick.
 */
export function PrintConfigSection({
  design,
  onColourChange,
}: {
  design: Design;
  onColourChange(colour: string): void;
}) {
  const { showToast } = useToast();
  const create = useCreatePrintConfig();
  const [chosenId, setChosenId] = useState<string | null>(null);
  const configs = design.printConfigs;
  const selected = configs.find((config) => config.id === chosenId) ?? configs[0] ?? null;

  function select(configId: string) {
    setChosenId(configId);
    const config = configs.find((c) => c.id === configId);
    if (config) onColourChange(config.colour);
  }

  function addConfiguration() {
    const base = selected;
    create.mutate(
      {
        designId: design.id,
        input: {
          name: base ? `${base.name} (copy)`.slice(0, 120) : 'Standard PLA',
          ...(base
            ? {
                filament: base.filament,
                colour: base.colour,
                layerHeightMm: base.layerHeightMm,
                infillPercent: base.infillPercent,
                isMultipart: base.isMultipart,
                parts: base.parts,
                multicolour: base.multicolour,
                addOns: base.addOns,
              }
            : {}),
        },
      },
      {
        onSuccess: (config) => {
          setChosenId(config.id);
          showToast(`Added “${config.name}”`);
        },
        onError: (error) => showToast(error.message, 'error'),
      },
    );
  }

  return (
    <Box
      component="section"
      aria-labelledby="print-configurations-heading"
      data-testid="print-configurations"
    >
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          gap: 2,
          flexWrap: 'wrap',
          mb: 1,
        }}
      >
        <Box>
          <Typography id="print-configurations-heading" variant="h6" component="h3">
            Print configurations
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Each configuration is one way to print this design, with its own price. Products will use them as
            variants.
          </Typography>
        </Box>
        <Button
          variant="outlined"
          startIcon={<AddIcon />}
          onClick={addConfiguration}
          disabled={create.isPending}
          data-testid="add-config"
        >
          {selected ? 'Duplicate as new' : 'Add configuration'}
        </Button>
      </Box>
      {configs.length > 0 && selected ? (
        <>
          <Tabs
            value={selected.id}
            onChange={(_event, value: string) => select(value)}
            variant="scrollable"
            scrollButtons="auto"
            aria-label="Print configurations"
            sx={{ borderBottom: 1, borderColor: 'divider', mb: 2.5 }}
          >
            {configs.map((config) => (
              <Tab
                key={config.id}
                value={config.id}
                data-testid="config-tab"
                sx={{ textTransform: 'none', alignItems: 'flex-start' }}
                label={
                  <Box sx={{ textAlign: 'left' }}>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
                      <Box
                        sx={{
                          width: 10,
                          height: 10,
                          borderRadius: '50%',
                          bgcolor: config.colour,
                          border: 1,
                          borderColor: 'divider',
                        }}
                      />
                      <span>{config.name}</span>
                    </Box>
                    <Typography variant="caption" color="text.secondary">
                      {config.filament} · {config.quote ? formatUsd(config.quote.costUsd) : 'no quote'}
                    </Typography>
                  </Box>
                }
              />
            ))}
          </Tabs>
          <PrintConfigEditor
            key={selected.id}
            design={design}
            config={selected}
            canDelete={configs.length > 1}
            onColourChange={onColourChange}
            onDeleted={() => setChosenId(null)}
          />
        </>
      ) : (
        <Typography color="text.secondary" sx={{ py: 2 }}>
          No configuration yet. Add one to get a quote.
        </Typography>
      )}
    </Box>
  );
}
