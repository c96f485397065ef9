import { mount } from 'svelte';
import { browser } from 'wxt/browser';
import '../../assets/theme.css';
import { t } from '../../lib/i18n';
import App from './App.svelte';

document.documentElement.lang = browser.i18n.getUILanguage();
document.title = t('options_title');
mount(App, { target: document.getElementById('app')! });
