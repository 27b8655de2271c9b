export const t = 1;
