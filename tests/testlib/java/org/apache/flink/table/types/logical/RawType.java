package org.apache.flink.table.types.logical;
import org.apache.flink.api.common.typeutils.TypeSerializer;
public final class RawType<T> extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final Class<T> clazz; private final TypeSerializer<T> serializer; private transient String serializerString;
  public RawType(boolean nullable, Class<T> clazz, TypeSerializer<T> serializer) { super(nullable, LogicalTypeRoot.RAW); this.clazz = clazz; this.serializer = serializer; }
}
