/**
 * Vocabularies of the synthetic corpus: one per theme (labelled topics and unlabelled background
 * themes) plus general filler per language. Words are space-separated to keep the file compact.
 * English verbs are third-person singular ("reveals"); Chinese words are written without spaces.
 */
export type Lang = 'en' | 'zh';

/** A theme of the synthetic web. `label` is null for unlabelled background themes. */
export interface Theme {
  id: string;
  label: string | null;
  lang: Lang;
  /** URL path slug of its section ("/topics/<slug>/"). */
  slug: string;
  /** Navigation name of its section. */
  section: string;
  /** ASCII words for host names. */
  hostWords: string[];
  /** Site names for hosts it dominates. */
  siteNames: string[];
  nouns: string[];
  verbs: string[];
  adjs: string[];
}

const w = (s: string): string[] => s.trim().split(/\s+/);
// English nouns may be multi-word: separated by "|"
const n = (s: string): string[] => s.split('|').map((x) => x.trim()).filter(Boolean);

export const THEMES: Theme[] = [
  {
    id: 'astronomy', label: 'astronomy', lang: 'en', slug: 'astronomy', section: 'Astronomy',
    hostWords: w('skywatch stargazer cosmos orbit nightsky telescope'),
    siteNames: n('Stargazer Daily|Night Sky Notes|Cosmos Weekly|Orbit Review|Deep Sky Journal'),
    nouns: n('telescope|galaxy|nebula|supernova|exoplanet|comet|asteroid belt|black hole|red giant|star cluster|dark matter|redshift|spectrograph|observatory|meteor shower|lunar eclipse|solar flare|planetary orbit|Milky Way|Andromeda|light curve|neutron star|pulsar|astronomer|radio telescope|space probe|Kuiper belt|cosmic background|gravitational wave|dwarf planet'),
    verbs: w('observes orbits reveals detects measures illuminates eclipses collapses emits charts'),
    adjs: w('stellar galactic orbital lunar interstellar celestial infrared distant luminous cosmic'),
  },
  {
    id: 'cooking', label: 'cooking', lang: 'en', slug: 'cooking', section: 'Cooking',
    hostWords: w('kitchen recipes foodie bakehouse spoon skillet'),
    siteNames: n('Home Kitchen|Recipe Box|The Hungry Spoon|Skillet & Oven|Bakehouse Notes'),
    nouns: n('recipe|sourdough|braise|cast-iron skillet|risotto|olive oil|garlic|roux|marinade|stock|pastry|dough|oven|chef|spice rub|vinaigrette|caramel|stir-fry|dumpling|casserole|butter|sauce|simmer pot|kitchen knife|baking sheet|tomato|basil|braised short rib|pancake batter|custard'),
    verbs: w('simmers roasts bakes seasons whisks sautes marinates braises kneads glazes'),
    adjs: w('crispy savory tender golden creamy smoky seasonal homemade spicy caramelized'),
  },
  {
    id: 'football', label: 'football', lang: 'en', slug: 'football', section: 'Football',
    hostWords: w('goal matchday pitch striker kickoff terrace'),
    siteNames: n('Matchday Report|The Pitch|Striker Weekly|Kickoff Central|Terrace Talk'),
    nouns: n('striker|midfielder|goalkeeper|penalty|league table|transfer window|derby|offside trap|free kick|header|clean sheet|relegation|promotion|manager|squad|stadium|supporters|hat-trick|counter-attack|formation|winger|centre-back|cup final|extra time|referee|corner kick|pressing game|youth academy|season ticket|title race'),
    verbs: w('scores defends tackles dribbles concedes equalises passes crosses shoots relegates'),
    adjs: w('attacking defensive decisive late stoppage-time unbeaten relegated promoted tactical prolific'),
  },
  {
    id: 'tobacco', label: 'tobacco', lang: 'zh', slug: 'yancao', section: '烟草',
    hostWords: w('yancao tobacco yanye juanyan leaf kaoyan'),
    siteNames: n('烟草资讯|烟叶之窗|卷烟观察|烟草科技|烟农之家'),
    nouns: n('烟草|烟叶|卷烟|烤烟|雪茄|烟农|烟草专卖|卷烟厂|烟叶收购|烟草公司|焦油|尼古丁|控烟|烟草税|烟叶品种|烤房|烟苗|卷烟品牌|烟草行业|烟草种植|烟草质量|烟叶等级|香烟|烟丝|烟草制品|卷烟营销|烟草科研|烟叶生产|控烟条例|烟草市场'),
    verbs: w('收购 烘烤 种植 调拨 复烤 卷制 分级 抽检 管控 推广'),
    adjs: w('优质 低焦油 上等 烤烟型 混合型 中式 醇和 清香 浓香 规范'),
  },
  {
    id: 'tea', label: 'tea', lang: 'zh', slug: 'chaye', section: '茶叶',
    hostWords: w('chaye tea mingcha chayuan puer longjing'),
    siteNames: n('茶叶世界|名茶网|茶园之声|普洱茶话|品茗天地'),
    nouns: n('茶叶|绿茶|红茶|乌龙茶|普洱茶|白茶|龙井|铁观音|碧螺春|茶园|茶农|采茶|制茶工艺|茶汤|茶具|紫砂壶|茶道|茶文化|春茶|新茶|茶多酚|杀青|揉捻|发酵|茶艺师|茶馆|茶树|茶叶市场|明前茶|茶香'),
    verbs: w('采摘 炒制 冲泡 品鉴 揉捻 烘焙 窖藏 拼配 审评 萎凋'),
    adjs: w('清香 醇厚 回甘 鲜爽 陈年 高山 手工 特级 馥郁 甘醇'),
  },
  {
    id: 'travel', label: null, lang: 'en', slug: 'travel', section: 'Travel',
    hostWords: w('travel voyage wander journeys trails'),
    siteNames: n('Wander Guide|Voyage Notes|Trails & Towns|The Travel Desk'),
    nouns: n('itinerary|hostel|beach|passport|museum|old town|train pass|boutique hotel|ferry|hiking trail|airport lounge|street market|guidebook|road trip|city break|backpack|visa|island|harbour|mountain village'),
    verbs: w('explores visits books crosses wanders discovers tours sails'),
    adjs: w('scenic budget coastal historic remote walkable sunny charming'),
  },
  {
    id: 'tech', label: null, lang: 'en', slug: 'tech', section: 'Tech',
    hostWords: w('gadget techwire bytes devices circuit'),
    siteNames: n('Gadget Wire|Byte Review|Device Lab|Circuit News'),
    nouns: n('smartphone|laptop|processor|battery|operating system|app store|cloud service|headphones|smartwatch|router|firmware update|graphics card|keyboard|display|charger|browser|start-up|chip|camera sensor|data centre'),
    verbs: w('launches upgrades benchmarks ships supports streams patches syncs'),
    adjs: w('wireless flagship foldable portable faster open-source affordable cloud-based'),
  },
  {
    id: 'shopping', label: null, lang: 'zh', slug: 'gouwu', section: '购物',
    hostWords: w('gouwu shop mall dianshang tuangou'),
    siteNames: n('购物天堂|优品商城|团购之家|电商导购'),
    nouns: n('优惠券|包邮|网购|快递|退换货|会员|折扣|购物车|直播带货|商品|店铺|秒杀|满减|家电|服装|化妆品|订单|物流|好评|促销'),
    verbs: w('下单 抢购 发货 退款 配送 领取 比价 收藏'),
    adjs: w('限时 正品 爆款 超值 热销 新款 特价 实惠'),
  },
  {
    id: 'lifestyle', label: null, lang: 'zh', slug: 'shenghuo', section: '生活',
    hostWords: w('shenghuo life jiaju jianshen meishi'),
    siteNames: n('生活家|居家指南|健康生活|时尚周刊'),
    nouns: n('家居|健身|瑜伽|穿搭|护肤|睡眠|收纳|装修|宠物|跑步|减肥|早餐|周末|亲子|旅行箱|咖啡|阅读|植物|心情|时尚'),
    verbs: w('分享 推荐 整理 坚持 打造 放松 搭配 改善'),
    adjs: w('简约 舒适 健康 时尚 温馨 轻松 实用 自然'),
  },
  {
    id: 'finance', label: null, lang: 'zh', slug: 'caijing', section: '财经',
    hostWords: w('caijing finance gushi licai jinrong'),
    siteNames: n('财经观察|理财之家|股市快讯|金融时报网'),
    nouns: n('股市|基金|利率|债券|理财产品|汇率|上市公司|财报|银行|保险|央行|通胀|投资者|指数|期货|房贷|消费|外贸|营收|经济数据'),
    verbs: w('上涨 下跌 发布 回落 增持 调整 投资 融资'),
    adjs: w('稳健 强劲 低迷 宽松 谨慎 持续 温和 结构性'),
  },
];

/** General words per language: nouns, verbs, adjectives, adverbs, people/organisations. */
export const FILLER: Record<Lang, { nouns: string[]; verbs: string[]; adjs: string[]; advs: string[]; who: string[] }> = {
  en: {
    nouns: n('report|year|community|plan|project|question|result|idea|article|week|reader|city|group|story|change|problem|answer|survey|team|season|guide|list|chance|detail|history|future|interview|review|programme|weekend'),
    verbs: w('shows improves explains changes follows describes suggests remains includes covers'),
    adjs: w('new recent simple important popular local common useful small major'),
    advs: w('quickly often still really usually clearly finally already recently widely'),
    who: n('our editors|a local expert|the organisers|one reader|the research team|a spokesperson|the authors|critics'),
  },
  zh: {
    nouns: n('工作|情况|问题|方面|发展|企业|部门|市场|社会|时间|记者|活动|服务|质量|技术|管理|地区|项目|标准|消费者|数据|经验|政策|环境|会议|人员|水平|能力|基础|机制'),
    verbs: w('推进 加强 提高 开展 落实 促进 完善 实现 保障 组织'),
    adjs: w('重要 全面 积极 有效 明显 稳定 持续 主要 良好 新'),
    advs: w('进一步 不断 逐步 切实 认真 全面 积极 大力 稳步 扎实'),
    who: n('有关负责人|业内人士|专家|相关部门|记者|工作人员|研究人员|当地群众'),
  },
};

/** Navigation and footer words per language. */
export const UI: Record<Lang, Record<string, string>> = {
  en: { home: 'Home', about: 'About us', contact: 'Contact', privacy: 'Privacy', members: 'Members', related: 'Related articles', latest: 'Latest', partners: 'Partner sites', next: 'Next page', prev: 'Previous page', more: 'More', by: 'By', rights: 'All rights reserved.', directory: 'Web directory', sites: 'Sites', picks: "Editor's picks" },
  zh: { home: '首页', about: '关于我们', contact: '联系我们', privacy: '隐私政策', members: '会员中心', related: '相关阅读', latest: '最新文章', partners: '友情链接', next: '下一页', prev: '上一页', more: '更多', by: '作者', rights: '版权所有', directory: '网址导航', sites: '网站', picks: '编辑推荐' },
};
