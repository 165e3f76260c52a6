/** §2: the header is 125 px tall and the mobile drawer 240 px wide. */
export const HEADER_HEIGHT_PX = 125;
export const MOBILE_DRAWER_WIDTH_PX = 240;
export const SIDE_NAV_WIDTH_PX = 248;
