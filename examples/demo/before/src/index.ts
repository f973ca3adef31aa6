export { type GreetOptions, greet } from "./greet.js";
