/** The SQL backends the store speaks; every dialect branch names one of these. */
export type Dialect = 'sqlite' | 'postgres';
