import { mount } from 'svelte';

import '../../assets/theme.css';
import { t, uiLocale } from '../../lib/i18n';
import App from './App.svelte';

document.documentElement.lang = uiLocale();
document.title = t('options_title');
mount(App, { target: document.getElementById('app')! });
