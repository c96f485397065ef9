import '../../assets/theme.css';
import './sidepanel.css';
import { mountChat } from '../../lib/ui/mount-chat';

mountChat('panel');
