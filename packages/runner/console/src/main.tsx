import { render } from "preact";
import "./console.css";

render(<p>msgx console</p>, document.getElementById("app")!);
