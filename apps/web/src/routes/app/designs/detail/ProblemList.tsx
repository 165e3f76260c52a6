import Box from '@mui/material/Box';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import type { ModelProblem } from '@layerline/contracts';
import { problemLabel, SEVERITY_ICONS, sortedProblems } from '../ProblemChips.tsx';

const SEVERITY_WORDS = { error: 'Must fix', warning: 'May print badly', info: 'Good to know' } as const;

/** The model's problems; choosing one shows where it is in the viewer. */
export function ProblemList({
  problems,
  selectedCode,
  onSelect,
  highlightNote,
}: {
  problems: readonly ModelProblem[];
  selectedCode: string | null;
  onSelect(code: string | null): void;
  /** Why nothing is highlighted for the selected problem, if that is the case. */
  highlightNote: string | null;
}) {
  if (problems.length === 0) {
    return (
      <Box
        sx={{ display: 'flex', gap: 1, alignItems: 'center', color: 'success.main' }}
        data-testid="no-problems"
      >
        <CheckCircleOutlineIcon />
        <Typography>No problems found: this model is ready to print.</Typography>
      </Box>
    );
  }
  return (
    <Box>
      <List dense disablePadding aria-label="Problems found" data-testid="problem-list">
        {sortedProblems(problems).map((problem) => {
          const selected = problem.code === selectedCode;
          return (
            <ListItemButton
              key={problem.code}
              selected={selected}
              onClick={() => onSelect(selected ? null : problem.code)}
              aria-pressed={selected}
              data-testid="problem-item"
              data-code={problem.code}
              sx={{ borderRadius: 1.5, alignItems: 'flex-start' }}
            >
              <ListItemIcon sx={{ minWidth: 32, mt: 0.5, color: `${problem.severity}.main` }}>
                {SEVERITY_ICONS[problem.severity]}
              </ListItemIcon>
              <ListItemText
                primary={
                  <>
                    {problemLabel(problem)}
                    <Typography
                      component="span"
                      variant="caption"
                      sx={{ ml: 1, color: `${problem.severity}.main` }}
                    >
                      {SEVERITY_WORDS[problem.severity]}
                    </Typography>
                  </>
                }
                secondary={problem.message}
              />
            </ListItemButton>
          );
        })}
      </List>
      <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
        {highlightNote ??
          (selectedCode
            ? 'Shown in red in the viewer. Click again to clear.'
            : 'Click a problem to see where it is.')}
      </Typography>
    </Box>
  );
}
