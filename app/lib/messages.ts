// Messages shown by more than one layer, in the browser and on the server alike.

/** Our own trouble, never the visitor's (docs/spec.md §8): the API's 500 envelope, the error page, failed uploads. */
export const SERVER_ERROR_MESSAGE = "Something went wrong. Please try again.";
