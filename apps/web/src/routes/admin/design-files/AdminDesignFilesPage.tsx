import { useState } from 'react';
import Box from '@mui/material/Box';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { DesignFilesTable } from './DesignFilesTable.tsx';
import { PriceTablePanel } from './PriceTablePanel.tsx';

type Section = 'designs' | 'prices';

/**
 * §2 /admin-print-configs, "Design Files": every seller's designs with their print configurations,
 * where an admin sets exact cost data, and the price table every quote is computed from.
 */
export default function AdminDesignFilesPage() {
  const [section, setSection] = useState<Section>('designs');
  return (
    <Box>
      <PageHeading
        title="Design Files"
        subtitle="Every seller's designs and print configurations, and the prices quotes are built from."
      />
      <Tabs
        value={section}
        onChange={(_event, value: Section) => setSection(value)}
        sx={{ mb: 3, borderBottom: 1, borderColor: 'divider' }}
        aria-label="Design files sections"
      >
        <Tab
          value="designs"
          label="Designs"
          id="design-files-tab-designs"
          aria-controls="design-files-panel-designs"
        />
        <Tab
          value="prices"
          label="Price table"
          id="design-files-tab-prices"
          aria-controls="design-files-panel-prices"
          data-testid="price-table-tab"
        />
      </Tabs>
      <Box
        role="tabpanel"
        id={`design-files-panel-${section}`}
        aria-labelledby={`design-files-tab-${section}`}
      >
        {section === 'designs' ? <DesignFilesTable /> : <PriceTablePanel />}
      </Box>
    </Box>
  );
}
