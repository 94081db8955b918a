/** The password rule, shared by the services that check it and the forms that state it before the first try. */
export const MIN_PASSWORD_LENGTH = 8;
