import { render } from 'preact';
import { adoptTokenFromLocation } from './api.ts';
import { App } from './app.tsx';
import './styles.css';

adoptTokenFromLocation();
const root = document.getElementById('app');
if (root !== null) render(<App />, root);
