import '../../assets/theme.css';
import './popup.css';
import { mountChat } from '../../lib/ui/mount-chat';

mountChat('popup');
