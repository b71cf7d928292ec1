/** One finding of `doctor`: what it checked, how it went, and what to do. */
export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}
