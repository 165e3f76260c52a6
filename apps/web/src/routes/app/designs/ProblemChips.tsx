import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import type { ModelProblem } from '@layerline/contracts';

/** "open-edges" reads "Open edges". */
export function problemTitle(code: string): string {
  const words = code.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const SEVERITY_ICONS = {
  error: <ErrorOutlineIcon fontSize="small" />,
  warning: <WarningAmberIcon fontSize="small" />,
  info: <InfoOutlinedIcon fontSize="small" />,
} as const;

/** "Open edges · 12"; the count is left out when it is not a count of things (overhangs report an area). */
export function problemLabel(problem: ModelProblem): string {
  const title = problemTitle(problem.code);
  return Number.isInteger(problem.count) && problem.count > 1
    ? `${title} · ${problem.count.toLocaleString('en-US')}`
    : title;
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

export function sortedProblems(problems: readonly ModelProblem[]): ModelProblem[] {
  return [...problems].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** The problems of a model as coloured chips (red: must fix, amber: may print badly, blue: good to know). */
export function ProblemChips({ problems, max = 3 }: { problems: readonly ModelProblem[]; max?: number }) {
  if (problems.length === 0) {
    return (
      <Box sx={{ display: 'flex' }}>
        <Chip
          size="small"
          color="success"
          variant="outlined"
          icon={<CheckCircleOutlineIcon fontSize="small" />}
          label="No problems found"
          data-testid="problem-chip"
          data-severity="none"
        />
      </Box>
    );
  }
  const sorted = sortedProblems(problems);
  const shown = sorted.slice(0, max);
  const hidden = sorted.slice(max);
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
      {shown.map((problem) => (
        <Tooltip key={problem.code} title={problem.message}>
          <Chip
            size="small"
            color={problem.severity}
            variant={problem.severity === 'info' ? 'outlined' : 'filled'}
            icon={SEVERITY_ICONS[problem.severity]}
            label={problemLabel(problem)}
            data-testid="problem-chip"
            data-severity={problem.severity}
          />
        </Tooltip>
      ))}
      {hidden.length > 0 ? (
        <Tooltip title={hidden.map((problem) => problemTitle(problem.code)).join(', ')}>
          <Chip size="small" variant="outlined" label={`+${hidden.length} more`} />
        </Tooltip>
      ) : null}
    </Box>
  );
}
