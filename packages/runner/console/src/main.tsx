import { render } from "preact";
import { App } from "./app.js";
import "./console.css";

render(<App />, document.getElementById("app")!);
