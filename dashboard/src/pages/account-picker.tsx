import { type Account, api } from '../api.ts';
import { ListPicker, OFFERED } from './list-picker.tsx';

/**
 * A field that chooses one person, however many accounts there are: typing searches their emails
 * and names through the account list's `?q=`, a few at a time (docs/decisions/1846). `value` is
 * the words the field shows for the account chosen ('' for none); a choice reads "Name (email)".
 */
export function AccountPicker({
  label,
  path,
  value,
  onChoose,
}: {
  label: string;
  /** The field's id. */
  path: string;
  value: string;
  onChoose: (account: Account) => void;
}) {
  const search = (text: string) => {
    const query = new URLSearchParams({ limit: String(OFFERED) });
    if (text) query.set('q', text);
    return api<Account[]>('GET', `/accounts?${query}`);
  };
  return (
    <ListPicker
      label={label}
      path={path}
      className="inline"
      value={value}
      search={search}
      textOf={(account) => account.email}
      show={(account) => `${account.name} (${account.email})`}
      noun="account"
      searched="an email or name"
      onChoose={onChoose}
    />
  );
}
