import type { ButtonHTMLAttributes, ReactNode } from 'react';

interface IconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'aria-label'> {
  /** The accessible name, e.g. 'Refresh'; also shown as a tooltip. */
  label: string;
  icon: ReactNode;
  tone?: 'default' | 'danger';
}

export function IconButton({
  label,
  icon,
  tone = 'default',
  className,
  ...props
}: IconButtonProps) {
  const classes = ['icon-button', tone === 'danger' && 'icon-button--danger', className]
    .filter(Boolean)
    .join(' ');
  return (
    <button type="button" aria-label={label} title={label} className={classes} {...props}>
      {icon}
    </button>
  );
}
