import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';

interface IconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'aria-label'> {
  /** The accessible name, e.g. 'Copy short link'. */
  label: string;
  /** The words shown beside the icon, when shorter than the name (e.g. 'Copy'); else the name. */
  text?: string;
  icon: ReactNode;
  tone?: 'default' | 'danger';
  ref?: Ref<HTMLButtonElement>;
}

/**
 * A small button with an icon and its words, both visible: no meaning hides in a tooltip that
 * a touch screen cannot show.
 */
export function IconButton({
  label,
  text = label,
  icon,
  tone = 'default',
  className,
  ...props
}: IconButtonProps) {
  const classes = ['icon-button', tone === 'danger' && 'icon-button--danger', className]
    .filter(Boolean)
    .join(' ');
  return (
    <button
      type="button"
      aria-label={text === label ? undefined : label}
      className={classes}
      {...props}
    >
      {icon}
      <span className="icon-button__text">{text}</span>
    </button>
  );
}
